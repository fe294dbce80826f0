package io.cutpoint.ops.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.Worker;
import io.cutpoint.client.session.SessionState;
import io.cutpoint.ops.demo.SnapshotChecker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every coordinator process stops (SIGTERM) and starts again: the committed snapshots are all
 * there, one of them leads, the same worker processes join it again without restarting, and
 * snapshots resume and conserve the money.
 */
class RestartAllTest {
  private static final List<String> ACCOUNTS = List.of("a", "b", "c");

  @TempDir Path dir;
  private HaProcessCluster cluster;

  @AfterEach
  void tearDown() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void afterEveryCoordinatorRestartsTheSnapshotsAreThereAndTheWorkersRejoin() throws Exception {
    cluster = new HaProcessCluster(dir);
    cluster.startAll(ACCOUNTS, 13);
    try {
      SnapshotChecker.Outcome full = cluster.awaitFullCommitAfter(cluster.audit.term().zxid());
      List<Long> before = cluster.audit.complete();
      List<Worker> workers = new ArrayList<>(cluster.bank.workers);
      for (CoordinatorProcesses.Node n : cluster.nodes.nodes()) {
        cluster.nodes.stop(n);
      }
      assertThat(cluster.nodes.leader()).isEmpty();
      for (CoordinatorProcesses.Node n : cluster.nodes.nodes()) {
        cluster.nodes.restart(n);
      }
      CoordinatorProcesses.Node leader = cluster.nodes.awaitLeader(null);
      CatalogAudit.Term term = cluster.audit.term();
      SnapshotChecker.Outcome after = cluster.awaitFullCommitAfter(term.zxid());
      assertThat(after.kind()).as(after.detail()).isEqualTo(SnapshotChecker.Kind.CONSERVED);
      cluster.assertStillComplete(before);
      for (long id : before) {
        SnapshotChecker.Outcome o = cluster.check(id);
        assertThat(o.kind())
            .as("snapshot %d: %s", id, o.detail())
            .isNotEqualTo(SnapshotChecker.Kind.VIOLATED)
            .isNotEqualTo(SnapshotChecker.Kind.GONE);
      }
      assertThat(cluster.bank.workers).containsExactlyElementsOf(workers);
      await()
          .atMost(HaProcessCluster.WAIT)
          .until(
              () ->
                  cluster.bank.sessions.stream()
                      .allMatch(
                          s ->
                              s.leaderTerm() == term.number() && s.state() != SessionState.CLOSED));
      System.out.printf(
          "HA restart all: %d snapshots committed before (newest full %d), %s leads term %d,"
              + " commit %d after the restart%n",
          before.size(), full.snapshotId(), leader, term.number(), after.snapshotId());
    } catch (AssertionError | RuntimeException e) {
      System.out.println(cluster.nodes.tails());
      throw e;
    }
  }
}
