package io.cutpoint.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import org.junit.jupiter.api.Test;

class StatusTextTest {

  @Test
  void namesTheCodeAndDescriptionWithoutTheToStringForm() {
    assertThat(StatusText.of(Status.CANCELLED.withDescription("client cancelled")))
        .isEqualTo("cancelled (client cancelled)");
    assertThat(StatusText.of(Status.DEADLINE_EXCEEDED)).isEqualTo("deadline exceeded");
    assertThat(
            StatusText.of(Status.UNAVAILABLE.withDescription("io exception").asRuntimeException()))
        .isEqualTo("unavailable (io exception)")
        .doesNotContain("Status{");
  }
}
