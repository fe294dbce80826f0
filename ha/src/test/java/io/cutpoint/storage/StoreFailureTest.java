package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ha.node.HaCoordinator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The object store of a highly available cluster fails under its leader: unreachable, snapshots end
 * ABORTED naming the store and the leader says why it cannot write, while every committed snapshot
 * stays COMPLETE; reachable again, snapshots commit again. Slow, snapshots still commit, slower.
 */
class StoreFailureTest {

  @TempDir Path dir;

  @Test
  void whileTheObjectStoreIsDownSnapshotsAbortSayingWhyAndAfterwardsTheyCommitAgain()
      throws Exception {
    try (HaCluster cluster = new HaCluster(dir)) {
      cluster.startNode();
      cluster.startNode();
      HaCoordinator leader =
          await().atMost(HaCluster.WAIT).until(cluster::leader, Optional::isPresent).get();
      cluster.startWorkers(cluster.addresses(), "a", "b");
      SnapshotManifest before = awaitCommitAfter(leader, 0);
      List<Long> committed = completeIds(leader);

      cluster.s3.stopServer();
      SnapshotManifest aborted =
          await()
              .atMost(HaCluster.WAIT)
              .until(() -> ended(leader, before.getSnapshotId()), m -> m.isPresent())
              .get();
      System.out.println(
          "object store down: snapshot "
              + aborted.getSnapshotId()
              + " "
              + aborted.getStatus()
              + ": "
              + aborted.getReason()
              + "; the leader says: "
              + leader.leader().flatMap(l -> l.storeUnavailable()).orElse("(nothing)"));
      assertThat(aborted.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
      assertThat(aborted.getReason()).containsIgnoringCase("S3");
      assertThat(leader.leader()).isPresent();
      assertThat(completeIds(leader)).containsAll(committed);

      cluster.s3.startServer();
      SnapshotManifest after = awaitCommitAfter(leader, aborted.getSnapshotId());
      assertThat(completeIds(leader)).containsAll(committed).contains(after.getSnapshotId());
      for (long id : committed) {
        assertThat(leader.leader().get().context().store().readState(id, "a", chunk -> {}))
            .isPositive();
      }
    }
  }

  @Test
  void aSlowObjectStoreSlowsSnapshotsDownButTheyStillCommit() throws Exception {
    try (HaCluster cluster = new HaCluster(dir)) {
      cluster.startNode();
      HaCoordinator leader =
          await().atMost(HaCluster.WAIT).until(cluster::leader, Optional::isPresent).get();
      cluster.startWorkers(cluster.addresses(), "a", "b");
      SnapshotManifest fast = awaitCommitAfter(leader, awaitCommitAfter(leader, 0).getSnapshotId());

      cluster.s3.slowDown(Duration.ofMillis(300));
      SnapshotManifest first = awaitCommitAfter(leader, fast.getSnapshotId());
      SnapshotManifest slow = awaitCommitAfter(leader, first.getSnapshotId());
      // the store writes in order on one thread: a piece's parts and metadata, then the commit,
      // each at least one object call, so the commit is seen well after the snapshot started
      long startToSeen = System.currentTimeMillis() - slow.getStartedAtUnixMs();
      cluster.s3.slowDown(Duration.ZERO);
      System.out.printf(
          "slow object store: snapshot %d verified in %d ms at full speed; %d committed %d ms"
              + " after its start with 300 ms per object call%n",
          fast.getSnapshotId(),
          fast.getTimings().getTotalMicros() / 1000,
          slow.getSnapshotId(),
          startToSeen);
      assertThat(startToSeen).isGreaterThanOrEqualTo(600);
      assertThat(leader.leader()).isPresent();
    }
  }

  /** Waits for a COMPLETE snapshot of both workers with an id above {@code afterId}. */
  private static SnapshotManifest awaitCommitAfter(HaCoordinator node, long afterId) {
    return await()
        .atMost(HaCluster.WAIT)
        .ignoreExceptions()
        .until(
            () ->
                node
                    .leader()
                    .get()
                    .context()
                    .store()
                    .list(EnumSet.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))
                    .stream()
                    .filter(
                        m -> m.getSnapshotId() > afterId && m.getTopology().getWorkersCount() == 2)
                    .findFirst(),
            Optional::isPresent)
        .get();
  }

  private static Optional<SnapshotManifest> ended(HaCoordinator node, long afterId) {
    return node
        .leader()
        .get()
        .context()
        .store()
        .list(
            EnumSet.of(
                SnapshotStatus.SNAPSHOT_STATUS_ABORTED, SnapshotStatus.SNAPSHOT_STATUS_FAILED))
        .stream()
        .filter(m -> m.getSnapshotId() > afterId)
        .findFirst();
  }

  private static List<Long> completeIds(HaCoordinator node) {
    return node
        .leader()
        .get()
        .context()
        .store()
        .list(EnumSet.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))
        .stream()
        .map(SnapshotManifest::getSnapshotId)
        .toList();
  }
}
