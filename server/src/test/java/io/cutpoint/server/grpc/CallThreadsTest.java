package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.RocksSnapshotStore;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a network port the handlers of an upload, a session and a trigger run on the transport's
 * thread (Netty's event loop), with no hop to an executor, and every other call on the handler
 * pool; a snapshot triggered and uploaded so commits.
 */
class CallThreadsTest {

  @TempDir Path dir;
  private CoordinatorServer server;
  private ManagedChannel channel;
  private RawWorker a;
  private RawWorker b;

  /** The threads that ran each method's handler and its messages. */
  private final Map<String, Set<String>> threads = new ConcurrentHashMap<>();

  private final ServerInterceptor recorder =
      new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
          String method = call.getMethodDescriptor().getBareMethodName();
          record(method);
          return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
              next.startCall(call, headers)) {
            @Override
            public void onMessage(Q message) {
              record(method);
              super.onMessage(message);
            }
          };
        }
      };

  private void record(String method) {
    threads
        .computeIfAbsent(method, m -> ConcurrentHashMap.newKeySet())
        .add(Thread.currentThread().getName());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void uploadsSessionsAndTriggersRunOnTheTransportsThreadAndOtherCallsOnTheHandlerPool()
      throws Exception {
    server =
        CoordinatorServer.start(
            InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
            new SimpleMeterRegistry(),
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .intercept(recorder),
            RocksSnapshotStore.open(dir));
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    var coordinator = CoordinatorGrpc.newStub(channel);
    a = new RawWorker(coordinator, "a").join(List.of("b"), List.of("b"));
    b = new RawWorker(coordinator, "b").join(List.of("a"), List.of("a"));
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    long id = admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();

    RawWorker.send(
            coordinator,
            RawWorker.upload(
                meta(id, "a").addSent(counter("b", 0)).addReceived(counter("b", 0)),
                "state of a".getBytes(StandardCharsets.UTF_8),
                4,
                List.of(ChannelRecording.newBuilder().setFrom("b").build())))
        .get(20, TimeUnit.SECONDS);
    RawWorker.send(
            coordinator,
            RawWorker.upload(
                meta(id, "b").addSent(counter("a", 0)).addReceived(counter("a", 0)),
                "b".getBytes(StandardCharsets.UTF_8),
                4,
                List.of(ChannelRecording.newBuilder().setFrom("a").setFirstMarker(true).build())))
        .get(20, TimeUnit.SECONDS);

    assertThat(
            admin
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                .getManifest()
                .getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(threads.get("UploadSnapshot"))
        .isNotEmpty()
        .allMatch(t -> t.startsWith("grpc-") && t.contains("ELG"), "a Netty event loop");
    assertThat(threads.get("TriggerSnapshot"))
        .isNotEmpty()
        .allMatch(t -> t.startsWith("grpc-") && t.contains("ELG"), "a Netty event loop");
    assertThat(threads.get("GetSnapshot"))
        .isNotEmpty()
        .allMatch(t -> t.startsWith("cutpoint-grpc-"), "a handler thread");
    assertThat(threads.get("Session"))
        .isNotEmpty()
        .allMatch(t -> t.startsWith("grpc-") && t.contains("ELG"), "a Netty event loop");
  }
}
