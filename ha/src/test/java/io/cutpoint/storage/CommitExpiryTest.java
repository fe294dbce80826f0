package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ha.node.HaCoordinator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's ZooKeeper session expires while a snapshot is being stored and committed (the object
 * store answers 150 ms late, so each snapshot's hand-off takes a while): that snapshot ends either
 * COMPLETE with every piece readable or ABORTED by the next leader, never in between, and the next
 * leader's store says the same as the catalog.
 */
class CommitExpiryTest {
  private static final int ROUNDS = 3;

  @TempDir Path dir;

  @Test
  void aSnapshotInFlightWhenTheSessionExpiresEndsCompleteOrAbortedNeverHalf() throws Exception {
    try (HaCluster cluster = new HaCluster(dir)) {
      cluster.startNode();
      cluster.startNode();
      HaCoordinator leader =
          await().atMost(HaCluster.WAIT).until(cluster::leader, Optional::isPresent).get();
      cluster.startWorkers(cluster.addresses(), "a", "b");
      await()
          .atMost(HaCluster.WAIT)
          .until(() -> HaCluster.latestComplete(leader), Optional::isPresent);
      cluster.s3.slowDown(Duration.ofMillis(150));
      List<String> outcomes = new ArrayList<>();
      for (int round = 0; round < ROUNDS; round++) {
        HaCoordinator current =
            await().atMost(HaCluster.WAIT).until(cluster::leader, Optional::isPresent).get();
        LeaderTerm old = current.term().orElseThrow();
        long inFlight =
            await()
                .atMost(HaCluster.WAIT)
                .pollInterval(Duration.ofMillis(5))
                .ignoreExceptions()
                .until(() -> pending(current), ids -> !ids.isEmpty())
                .get(0);

        KillSession.kill(cluster.zkOf(current).getZookeeperClient().getZooKeeper());

        HaCoordinator next =
            await()
                .atMost(HaCluster.WAIT)
                .ignoreExceptions()
                .until(
                    cluster::leader,
                    l -> l.isPresent() && l.get().term().orElseThrow().number() > old.number())
                .get();
        SnapshotStore store = next.leader().orElseThrow().context().store();
        Optional<SnapshotManifest> stored = store.manifest(inFlight);
        if (stored.isEmpty()) {
          // the session expired before the snapshot's first write reached the slowed store: the
          // snapshot was never stored, which is not half stored either
          outcomes.add(inFlight + " never stored");
          awaitNewerComplete(next, inFlight);
          continue;
        }
        SnapshotManifest m = stored.get();
        outcomes.add(inFlight + " " + m.getStatus() + " " + m.getReason());
        assertThat(m.getStatus())
            .as("snapshot %d after the expiry", inFlight)
            .isIn(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE, SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
        if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
          store.verifyIntegrity(inFlight);
          for (WorkerPiece p : m.getPiecesList()) {
            assertThat(store.readState(inFlight, p.getWorkerId(), chunk -> {})).isPositive();
          }
        }
        awaitNewerComplete(next, inFlight);
      }
      System.out.println("snapshots in flight at the session's expiry: " + outcomes);
    }
  }

  /** The next leader commits a snapshot of both workers after {@code inFlight}. */
  private static void awaitNewerComplete(HaCoordinator next, long inFlight) {
    SnapshotManifest committed =
        await()
            .atMost(HaCluster.WAIT)
            .until(
                () -> HaCluster.latestComplete(next),
                c -> c.isPresent() && c.get().getSnapshotId() > inFlight)
            .get();
    assertThat(committed.getTopology().getWorkersList()).hasSize(2);
  }

  private static List<Long> pending(HaCoordinator node) {
    ClusterView v =
        AdminGrpc.newBlockingStub(node.localChannel())
            .withDeadlineAfter(2, TimeUnit.SECONDS)
            .getCluster(GetClusterRequest.getDefaultInstance());
    return v.getPendingSnapshotsList();
  }
}
