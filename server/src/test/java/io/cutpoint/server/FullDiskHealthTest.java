package io.cutpoint.server;

import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.SmallDisk;
import io.grpc.Context;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator whose store is on a real (tmpfs) disk that fills up: health goes NOT_SERVING with
 * the store's error, the pending snapshot aborts, and once space is back health is SERVING again
 * and a new snapshot commits, without a restart.
 */
class FullDiskHealthTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static ServingStatus health(InProcessCoordinator c) {
    return HealthGrpc.newBlockingStub(c.channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance())
        .getStatus();
  }

  private static SnapshotStatus status(InProcessCoordinator c, long id) {
    return c.admin()
        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
        .getManifest()
        .getStatus();
  }

  /**
   * Every status the health service reports from now on, in order. Polling could miss a short
   * NOT_SERVING: the failed write can free the space it had taken, so the store's probe write may
   * succeed (and health turn SERVING) within one check, although the disk is still full.
   */
  private static List<ServingStatus> watchHealth(
      InProcessCoordinator c, Context.CancellableContext ctx) {
    List<ServingStatus> seen = new CopyOnWriteArrayList<>();
    ctx.run(
        () ->
            HealthGrpc.newStub(c.channel)
                .watch(
                    HealthCheckRequest.getDefaultInstance(),
                    new StreamObserver<HealthCheckResponse>() {
                      @Override
                      public void onNext(HealthCheckResponse r) {
                        seen.add(r.getStatus());
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {}
                    }));
    return seen;
  }

  /** The piece of {@code worker} (channels to and from {@code peer}, nothing sent or received). */
  private static List<UploadPart> piece(long id, String worker, String peer, byte[] state) {
    return RawWorker.upload(
        meta(id, worker).addSent(counter(peer, 0)).addReceived(counter(peer, 0)),
        state,
        64 << 10,
        List.of(ChannelRecording.newBuilder().setFrom(peer).build()));
  }

  @Test
  void healthIsNotServingWhileTheDiskIsFullAndServingAgainOnceSpaceIsBack() throws Exception {
    try (SmallDisk disk = SmallDisk.mount(dir, 8);
        InProcessCoordinator c =
            new InProcessCoordinator(
                InProcessCoordinator.config(disk.root.resolve("data"))
                    .heartbeatInterval(Duration.ofMillis(100))
                    .heartbeatTimeout(Duration.ofMinutes(10))
                    .build());
        RawWorker a = new RawWorker(c.async(), "a").join(List.of("b"), List.of("b"));
        RawWorker b = new RawWorker(c.async(), "b").join(List.of("a"), List.of("a"))) {
      a.await(CoordinatorMessage::hasWelcome);
      b.await(CoordinatorMessage::hasWelcome);
      assertThat(health(c)).isEqualTo(ServingStatus.SERVING);
      long during =
          c.admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
      Context.CancellableContext watch = Context.current().withCancellation();
      try {
        List<ServingStatus> seen = watchHealth(c, watch);
        await().atMost(WAIT).until(() -> seen.contains(ServingStatus.SERVING));

        disk.fill();
        try {
          RawWorker.send(c.async(), piece(during, "a", "b", new byte[2 << 20]))
              .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException refused) {
          // the store could not write the piece: what matters is what the coordinator does next
        }
        await().atMost(WAIT).until(() -> seen.contains(ServingStatus.NOT_SERVING));

        disk.free();
        await().atMost(WAIT).until(() -> seen.get(seen.size() - 1) == ServingStatus.SERVING);
      } finally {
        watch.cancel(null);
      }
      assertThat(health(c)).isEqualTo(ServingStatus.SERVING);
      assertThat(c.server.storeUnavailable()).isEmpty();
      await().atMost(WAIT).until(() -> status(c, during) == SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
      assertThat(
              c.admin()
                  .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(during).build())
                  .getManifest()
                  .getReason())
          .as("the pending snapshot is aborted with the store's error")
          .contains("No space left");

      long after =
          c.admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
      RawWorker.send(c.async(), piece(after, "a", "b", new byte[4096]))
          .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      RawWorker.send(c.async(), piece(after, "b", "a", new byte[4096]))
          .get(WAIT.toSeconds(), TimeUnit.SECONDS);
      await().atMost(WAIT).until(() -> status(c, after) == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    }
  }
}
