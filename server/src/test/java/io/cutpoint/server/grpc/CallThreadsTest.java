package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
  private RawPair pair;

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
    if (pair != null) {
      pair.close();
    }
  }

  @Test
  void uploadsSessionsAndTriggersRunOnTheTransportsThreadAndOtherCallsOnTheHandlerPool()
      throws Exception {
    pair =
        new RawPair(
            InProcessCoordinator.onLoopback(
                InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
                recorder));
    var coordinator = pair.coordinator.async();
    RawWorker.send(coordinator, pair.pieceOfA("state of a".getBytes(StandardCharsets.UTF_8)))
        .get(20, TimeUnit.SECONDS);
    RawWorker.send(coordinator, pair.pieceOfB("b".getBytes(StandardCharsets.UTF_8), 2, 3))
        .get(20, TimeUnit.SECONDS);

    var admin = pair.coordinator.admin().withDeadlineAfter(20, TimeUnit.SECONDS);
    assertThat(
            admin
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(pair.snapshotId).build())
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
