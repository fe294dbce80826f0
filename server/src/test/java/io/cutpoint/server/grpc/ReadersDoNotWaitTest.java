package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.SetScheduleRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.SnapshotStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While the store's synced commit of a snapshot is held, the coordinator still answers: readers
 * (cluster view, list, get) from the published views, and requests that change its state from the
 * loop, which never waits for the store.
 */
class ReadersDoNotWaitTest {

  @TempDir Path dir;
  private final CountDownLatch commitEntered = new CountDownLatch(1);
  private final CountDownLatch releaseCommit = new CountDownLatch(1);
  private RawPair pair;

  /** The store, with every commit held until the test releases it. */
  private SnapshotStore gated(SnapshotStore real) {
    return InterceptedStore.around(
        real,
        (method, args) -> {
          if (method.equals("commit")) {
            commitEntered.countDown();
            if (!releaseCommit.await(60, TimeUnit.SECONDS)) {
              throw new AssertionError("the commit was never released");
            }
          }
        });
  }

  @AfterEach
  void tearDown() throws Exception {
    releaseCommit.countDown();
    if (pair != null) {
      pair.close();
    }
  }

  @Test
  void theCoordinatorAnswersWhileTheStoreHoldsACommit() throws Exception {
    pair =
        new RawPair(
            InProcessCoordinator.pooled(
                InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
                this::gated));
    var coordinator = pair.coordinator.async();
    AdminGrpc.AdminBlockingStub admin = pair.coordinator.admin();
    long id = pair.snapshotId;

    RawWorker.send(coordinator, pair.pieceOfA("a".getBytes(StandardCharsets.UTF_8)))
        .get(20, TimeUnit.SECONDS);
    CompletableFuture<UploadResult> last =
        RawWorker.send(coordinator, pair.pieceOfB("b".getBytes(StandardCharsets.UTF_8), 2, 3));
    assertThat(commitEntered.await(20, TimeUnit.SECONDS))
        .as("the commit reached the store")
        .isTrue();

    AdminGrpc.AdminBlockingStub quick = admin.withDeadlineAfter(5, TimeUnit.SECONDS);
    ClusterView cluster = quick.getCluster(GetClusterRequest.getDefaultInstance());
    assertThat(cluster.getPendingSnapshotsList()).containsExactly(id);
    assertThat(quick.listSnapshots(ListSnapshotsRequest.getDefaultInstance()).getSnapshotsList())
        .extracting(m -> m.getSnapshotId())
        .contains(id);
    assertThat(
            quick
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                .getManifest()
                .getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    // the loop itself is free: a request it must apply is answered too
    assertThat(
            admin
                .withDeadlineAfter(5, TimeUnit.SECONDS)
                .setSchedule(SetScheduleRequest.newBuilder().setPaused(true).build())
                .getSchedule()
                .getPaused())
        .isTrue();
    assertThat(last).isNotDone(); // the last piece is answered once the snapshot is committed

    releaseCommit.countDown();
    last.get(20, TimeUnit.SECONDS);
    assertThat(
            admin
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                .getManifest()
                .getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
  }
}
