package io.cutpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The coordinator's inbound message limit over loopback Netty. */
class InboundSizeLimitTest {

  @TempDir Path dir;
  private CoordinatorServer server;
  private ManagedChannel channel;

  @AfterEach
  void tearDown() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private static ListSnapshotsRequest withTokenOf(int bytes) {
    return ListSnapshotsRequest.newBuilder().setPageToken("9".repeat(bytes)).build();
  }

  @Test
  void aMessageOverTheLimitIsResourceExhaustedAndOneJustUnderItReachesTheService()
      throws Exception {
    server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir)
                .snapshotInterval(Duration.ZERO)
                .build(),
            new SimpleMeterRegistry());
    channel = NettyChannelBuilder.forTarget(server.target()).usePlaintext().build();
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);

    assertThatThrownBy(
            () -> admin.listSnapshots(withTokenOf(CoordinatorServer.MAX_INBOUND_MESSAGE_BYTES + 1)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(e.getStatus().getDescription())
                  .contains(String.valueOf(CoordinatorServer.MAX_INBOUND_MESSAGE_BYTES));
            });
    // The same request under the limit gets past the transport: the service rejects the token
    // itself, with a description short enough to travel back (it names the token's length).
    int under = CoordinatorServer.MAX_INBOUND_MESSAGE_BYTES - 64;
    assertThatThrownBy(() -> admin.listSnapshots(withTokenOf(under)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo(
                      "page_token '"
                          + "9".repeat(40)
                          + "...' ("
                          + under
                          + " characters) is not one this server issued");
            });
    // Any description that echoes input is cut short.
    String hugeId = "w".repeat(8 << 20);
    assertThatThrownBy(
            () ->
                admin.getChannelState(
                    GetChannelStateRequest.newBuilder()
                        .setSnapshotId(1)
                        .setChannel(ChannelRef.newBuilder().setFrom(hugeId).setTo("b"))
                        .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .startsWith("channel needs valid from and to worker ids, got 'www")
                  .endsWith("characters)")
                  .hasSizeLessThan(1100);
            });
  }
}
