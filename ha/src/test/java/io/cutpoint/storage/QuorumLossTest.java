package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ha.node.HaCoordinator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two of the three ZooKeeper servers stop: no quorum, so the leader stops leading and says why (its
 * log, its history, the gauges {@code cutpoint.ha.zookeeper.connected} and {@code
 * cutpoint.ha.leader}), no server leads or commits meanwhile; with the quorum back, a leader is
 * elected under a newer term and snapshots resume with the same workers.
 */
class QuorumLossTest {

  @TempDir Path dir;

  @Test
  void withoutAZooKeeperQuorumNobodyLeadsAndSaysWhyAndSnapshotsResumeAfterwards() throws Exception {
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
      assertThat(gauge(cluster, leader, "cutpoint.ha.leader")).isEqualTo(1);
      assertThat(gauge(cluster, leader, "cutpoint.ha.zookeeper.connected")).isEqualTo(1);

      List<InstanceSpec> stopped = new ArrayList<>(cluster.zk.getInstances()).subList(0, 2);
      for (InstanceSpec s : stopped) {
        cluster.zk.killServer(s);
      }
      await()
          .atMost(HaCluster.WAIT)
          .until(
              leader::history,
              h ->
                  h.stream()
                      .anyMatch(
                          e ->
                              e.startsWith("stopped leading term " + old.number())
                                  && e.contains("ZooKeeper connection")));
      System.out.println("without quorum, the leader's history: " + leader.history());
      // The servers stop one after the other: after the first, the client may still reconnect to
      // the two that keep a quorum, until the second stops too. So wait for it to stay apart.
      await()
          .atMost(HaCluster.WAIT)
          .during(Duration.ofSeconds(2))
          .until(
              () ->
                  !leader.zookeeperState().isConnected()
                      && gauge(cluster, leader, "cutpoint.ha.zookeeper.connected") == 0
                      && cluster.nodes.stream().allMatch(n -> n.leader().isEmpty())
                      && cluster.nodes.stream()
                          .allMatch(n -> gauge(cluster, n, "cutpoint.ha.leader") == 0));

      for (InstanceSpec s : stopped) {
        cluster.zk.restartServer(s);
      }
      // The leader is read anew at each poll: just after the quorum is back, a server can be
      // elected and revoked again within milliseconds, as both reset their latches.
      SnapshotManifest after =
          await()
              .atMost(HaCluster.WAIT)
              .ignoreExceptions()
              .until(
                  () ->
                      cluster
                          .leader()
                          .filter(l -> l.term().orElseThrow().number() > old.number())
                          .flatMap(HaCluster::latestComplete),
                  m -> m.isPresent() && m.get().getSnapshotId() > before.getSnapshotId())
              .get();
      assertThat(after.getTopology().getWorkersList()).hasSize(2);
      await()
          .atMost(HaCluster.WAIT)
          .ignoreExceptions()
          .until(
              () ->
                  cluster
                      .leader()
                      .map(l -> gauge(cluster, l, "cutpoint.ha.zookeeper.connected") == 1)
                      .orElse(false));
    }
  }

  private static double gauge(HaCluster cluster, HaCoordinator node, String name) {
    return cluster.registries.get(node).get(name).gauge().value();
  }
}
