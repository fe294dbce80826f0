package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ha.node.HaCoordinator;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's ZooKeeper session expires while it snapshots: it stops leading at once, the other
 * coordinator takes a newer term and commits with the same workers.
 */
class SessionExpiryTest {

  @TempDir Path dir;

  @Test
  void aLeaderWhoseZooKeeperSessionExpiresStopsAndTheOtherOneCommits() throws Exception {
    try (HaCluster cluster = new HaCluster(dir)) {
      cluster.startNode();
      cluster.startNode();
      HaCoordinator leader =
          await().atMost(HaCluster.WAIT).until(cluster::leader, Optional::isPresent).get();
      LeaderTerm old = leader.term().orElseThrow();
      cluster.startWorkers(cluster.addresses(), "a", "b");
      SnapshotManifest before =
          await()
              .atMost(HaCluster.WAIT)
              .until(() -> HaCluster.latestComplete(leader), Optional::isPresent)
              .get();

      KillSession.kill(cluster.zkOf(leader).getZookeeperClient().getZooKeeper());

      await()
          .atMost(HaCluster.WAIT)
          .until(
              leader::history,
              h -> h.stream().anyMatch(e -> e.startsWith("stopped leading term " + old.number())));
      HaCoordinator now =
          await()
              .atMost(HaCluster.WAIT)
              .until(
                  cluster::leader,
                  l -> l.isPresent() && l.get().term().orElseThrow().number() > old.number())
              .get();
      SnapshotManifest after =
          await()
              .atMost(HaCluster.WAIT)
              .until(
                  () -> HaCluster.latestComplete(now),
                  m -> m.isPresent() && m.get().getSnapshotId() > before.getSnapshotId())
              .get();
      assertThat(after.getTopology().getWorkersList()).hasSize(2);
    }
  }
}
