package io.cutpoint.ops.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class GrpcErrorsTest {

  @Test
  void mapsStatusCodesToShortLines() {
    assertThat(
            GrpcErrors.describe(
                Status.UNAVAILABLE
                    .withCause(new ConnectException("Connection refused"))
                    .withDescription("io exception")
                    .asRuntimeException(),
                "h:1",
                ""))
        .isEqualTo("cannot reach coordinator at h:1: connection refused");
    assertThat(GrpcErrors.describe(Status.NOT_FOUND.asRuntimeException(), "h:1", "snapshot 42"))
        .isEqualTo("snapshot 42 not found");
    assertThat(
            GrpcErrors.describe(
                Status.NOT_FOUND.withDescription("no manifest").asRuntimeException(),
                "h:1",
                "snapshot 42"))
        .isEqualTo("snapshot 42 not found (no manifest)");
    assertThat(GrpcErrors.describe(Status.DEADLINE_EXCEEDED.asRuntimeException(), "h:1", ""))
        .isEqualTo("coordinator at h:1 did not answer in time");
    assertThat(
            GrpcErrors.describe(
                Status.DATA_LOSS.withDescription("crc mismatch in chunk 3").asRuntimeException(),
                "h:1",
                "snapshot 5"))
        .isEqualTo("snapshot 5: stored data is corrupt: crc mismatch in chunk 3");
    assertThat(
            GrpcErrors.describe(
                Status.FAILED_PRECONDITION
                    .withDescription("a rollback is running")
                    .asRuntimeException(),
                "h:1",
                "snapshot 5"))
        .isEqualTo("snapshot 5: a rollback is running");
    assertThat(
            GrpcErrors.describe(
                Status.INTERNAL.withDescription("boom").asRuntimeException(), "h:1", ""))
        .isEqualTo("internal: boom");
  }
}
