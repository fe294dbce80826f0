package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.client.session.SessionState;
import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ha.Terms;
import io.cutpoint.ha.node.HaCoordinator;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coordinators of one cluster on a 3-server ZooKeeper ensemble and S3Proxy, with real workers: one
 * leads and commits, the standbys point at it, the next one takes over when it stops, and a leader
 * whose term was taken stops at its next store write.
 */
class FailoverTest {

  @TempDir Path dir;

  @Test
  void whenTheLeaderStopsTheNextOneTakesOverAndTheSameWorkersCommitWithIt() throws Exception {
    try (HaCluster cluster = new HaCluster(dir)) {
      for (int i = 0; i < 3; i++) {
        cluster.startNode();
      }
      HaCoordinator first =
          await()
              .atMost(HaCluster.WAIT)
              .until(cluster::leader, java.util.Optional::isPresent)
              .get();
      LeaderTerm firstTerm = first.term().orElseThrow();
      List<String> addresses = new ArrayList<>(cluster.addresses());
      addresses.remove(first.address());
      addresses.add(first.address()); // the workers ask a standby first and follow its pointer
      cluster.startWorkers(addresses, "a", "b", "c");
      SnapshotManifest committed =
          await()
              .atMost(HaCluster.WAIT)
              .until(() -> HaCluster.latestComplete(first), java.util.Optional::isPresent)
              .get();
      assertThat(
              committed.getTopology().getWorkersList().stream().map(w -> w.getWorkerId()).toList())
          .containsExactlyInAnyOrder("a", "b", "c");

      HaCoordinator standby =
          cluster.nodes.stream().filter(n -> n != first).findFirst().orElseThrow();
      assertStandbyPointsAt(standby, first.address());

      long stoppedAt = System.nanoTime();
      first.close();
      HaCoordinator next =
          await()
              .atMost(HaCluster.WAIT)
              .until(cluster::leader, java.util.Optional::isPresent)
              .get();
      assertThat(next).isNotSameAs(first);
      assertThat(next.term().orElseThrow().number()).isGreaterThan(firstTerm.number());
      SnapshotManifest after =
          await()
              .atMost(HaCluster.WAIT)
              .until(
                  () -> HaCluster.latestComplete(next),
                  m -> m.isPresent() && m.get().getSnapshotId() > committed.getSnapshotId())
              .get();
      long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
      System.out.println(
          "failover: leader stopped -> first commit by the next one in " + failoverMs + " ms");
      assertThat(after.getTopology().getWorkersList().stream().map(w -> w.getWorkerId()).toList())
          .containsExactlyInAnyOrder("a", "b", "c");
      assertThat(cluster.sessions)
          .allSatisfy(s -> assertThat(s.state()).isNotEqualTo(SessionState.CLOSED));
      // every command of the new leader carried its term
      long nextTerm = next.term().orElseThrow().number();
      await()
          .atMost(HaCluster.WAIT)
          .until(() -> cluster.sessions.stream().allMatch(s -> s.leaderTerm() == nextTerm));
    }
  }

  @Test
  void aLeaderWhoseTermIsTakenStopsAtItsNextStoreWriteAndANewTermCommits() throws Exception {
    try (HaCluster cluster = new HaCluster(dir)) {
      cluster.startNode();
      cluster.startNode();
      HaCoordinator leader =
          await()
              .atMost(HaCluster.WAIT)
              .until(cluster::leader, java.util.Optional::isPresent)
              .get();
      LeaderTerm old = leader.term().orElseThrow();
      cluster.startWorkers(cluster.addresses(), "a", "b");
      SnapshotManifest before =
          await()
              .atMost(HaCluster.WAIT)
              .until(() -> HaCluster.latestComplete(leader), java.util.Optional::isPresent)
              .get();

      LeaderTerm taken;
      try (CuratorFramework zk = HaCoordinator.zookeeper(cluster.zk.getConnectString())) {
        taken = Terms.take(zk, cluster.where.catalogPath()); // as a paused leader's successor would
      }

      await()
          .atMost(HaCluster.WAIT)
          .until(
              leader::history,
              h ->
                  h.stream()
                      .anyMatch(
                          e -> e.startsWith("stopped leading term " + old.number() + ": fenced")));
      HaCoordinator now =
          await()
              .atMost(HaCluster.WAIT)
              .until(
                  cluster::leader,
                  l -> l.isPresent() && l.get().term().orElseThrow().number() > taken.number())
              .get();
      SnapshotManifest after =
          await()
              .atMost(HaCluster.WAIT)
              .until(
                  () -> HaCluster.latestComplete(now),
                  m -> m.isPresent() && m.get().getSnapshotId() > before.getSnapshotId())
              .get();
      assertThat(after.getTopology().getWorkersList().stream().map(w -> w.getWorkerId()).toList())
          .containsExactlyInAnyOrder("a", "b");
    }
  }

  /** Joins and Admin calls get UNAVAILABLE naming the leader; health is NOT_SERVING. */
  private static void assertStandbyPointsAt(HaCoordinator standby, String leader)
      throws InterruptedException {
    ManagedChannel c =
        Grpc.newChannelBuilder(standby.address(), InsecureChannelCredentials.create()).build();
    try {
      assertThatThrownBy(
              () ->
                  AdminGrpc.newBlockingStub(c)
                      .listSnapshots(ListSnapshotsRequest.getDefaultInstance()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription())
                    .isEqualTo("not the leader; the leader is " + leader);
              });
      for (String name : List.of("", CoordinatorGrpc.SERVICE_NAME, AdminGrpc.SERVICE_NAME)) {
        assertThat(
                HealthGrpc.newBlockingStub(c)
                    .check(HealthCheckRequest.newBuilder().setService(name).build())
                    .getStatus())
            .isEqualTo(ServingStatus.NOT_SERVING);
      }
    } finally {
      c.shutdownNow();
      c.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
