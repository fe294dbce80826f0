package io.cutpoint.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.client.session.SessionListener;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example application joins a real coordinator over gRPC, and its snapshots complete. */
class TickerWorkerTest {

  @Test
  void twoTickersJoinACoordinatorAndTakeACompleteSnapshot(@TempDir Path dir) throws Exception {
    CoordinatorConfig config =
        CoordinatorConfig.builder()
            .port(0)
            .dataDir(dir.resolve("data"))
            .snapshotInterval(Duration.ZERO)
            .snapshotTimeout(Duration.ofSeconds(20))
            .build();
    Set<String> uploads = ConcurrentHashMap.newKeySet();
    try (CoordinatorServer server = CoordinatorServer.start(config, new SimpleMeterRegistry())) {
      String target = "127.0.0.1:" + server.port();
      ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
      try (TickerWorker left =
              TickerWorker.start(target, "left", "right", 5, recordUploads("left", uploads));
          TickerWorker right =
              TickerWorker.start(target, "right", "left", 5, recordUploads("right", uploads))) {
        left.joined().get(30, TimeUnit.SECONDS);
        right.joined().get(30, TimeUnit.SECONDS);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> left.counters().get()[1] >= 10 && right.counters().get()[1] >= 10);

        AdminGrpc.AdminBlockingStub admin = AdminGrpc.newBlockingStub(channel);
        TriggerSnapshotResponse snap =
            await()
                .atMost(Duration.ofSeconds(60))
                .until(
                    () ->
                        admin
                            .withDeadlineAfter(20, TimeUnit.SECONDS)
                            .triggerSnapshot(
                                TriggerSnapshotRequest.newBuilder().setWait(true).build()),
                    r -> r.getManifest().getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);

        assertThat(snap.getManifest().getPiecesList())
            .extracting(WorkerPiece::getWorkerId)
            .containsExactlyInAnyOrder("left", "right");
        long id = snap.getSnapshotId();
        // each worker hears of its upload on its own session thread, maybe just after the commit
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> uploads.containsAll(Set.of("left:" + id, "right:" + id)));
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static SessionListener recordUploads(String worker, Set<String> into) {
    return new SessionListener() {
      @Override
      public void uploaded(long snapshotId, long stateBytes) {
        into.add(worker + ":" + snapshotId);
      }
    };
  }
}
