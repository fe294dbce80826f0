package io.cutpoint.server.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.BoundedStatusDescriptions;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.DownloadRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The one place where status descriptions are cut short, over loopback Netty. */
class BoundedStatusDescriptionsTest {

  /** A service whose one method fails with a 2 MiB description. */
  private static ServerServiceDefinition verbose() {
    return ServerServiceDefinition.builder(CoordinatorGrpc.SERVICE_NAME)
        .addMethod(
            CoordinatorGrpc.getDownloadSnapshotMethod(),
            ServerCalls.asyncServerStreamingCall(
                (req, out) ->
                    out.onError(
                        Status.NOT_FOUND
                            .withDescription("é".repeat(1 << 20))
                            .asRuntimeException())))
        .build();
  }

  private static Status call(ServerServiceDefinition service) throws Exception {
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service)
            .build()
            .start();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    try {
      var it =
          CoordinatorGrpc.newBlockingStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .downloadSnapshot(DownloadRequest.getDefaultInstance());
      try {
        it.forEachRemaining(p -> {});
      } catch (StatusRuntimeException e) {
        return e.getStatus();
      }
      return Status.OK;
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void withoutTheInterceptorAHugeDescriptionReachesTheClientAsInternal() throws Exception {
    // the fault the interceptor guards against
    assertThat(call(verbose()).getCode()).isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void withTheInterceptorTheCodeSurvivesAndTheDescriptionIsCutToTheLimit() throws Exception {
    Status s = call(ServerInterceptors.intercept(verbose(), new BoundedStatusDescriptions()));
    assertThat(s.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(s.getDescription()).startsWith("éé").endsWith("... (1048576 characters)");
    assertThat(s.getDescription().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(BoundedStatusDescriptions.MAX_DESCRIPTION_BYTES);
  }

  @Test
  void aShortDescriptionIsLeftAlone() {
    Status s =
        Status.ABORTED.withDescription("x".repeat(BoundedStatusDescriptions.MAX_DESCRIPTION_BYTES));
    assertThat(BoundedStatusDescriptions.bounded(s)).isSameAs(s);
    String over = "x".repeat(BoundedStatusDescriptions.MAX_DESCRIPTION_BYTES + 1);
    assertThat(BoundedStatusDescriptions.bounded(over))
        .endsWith("... (1025 characters)")
        .hasSize(BoundedStatusDescriptions.MAX_DESCRIPTION_BYTES);
  }
}
