package io.cutpoint.ops.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.ops.demo.SnapshotChecker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leading coordinator process is frozen ({@code kill -STOP}, as a long GC pause or a stopped VM
 * would) until its ZooKeeper session expires and a standby leads under a newer term, then thawed
 * ({@code kill -CONT}): it must step down, not keep leading. Its term commits nothing after the new
 * one was taken, the workers follow the new leader's term, and the new leader commits.
 *
 * <p>The new leader commits while the old one is still frozen: the workers' keepalive pings go
 * unanswered, their streams to the frozen leader break and they join its successor.
 */
class FrozenLeaderTest {
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
  void aFrozenLeaderThatComesBackStepsDownAndCommitsNothing() throws Exception {
    cluster = new HaProcessCluster(dir);
    CoordinatorProcesses.Node old = cluster.startAll(ACCOUNTS, 11);
    CatalogAudit.Term oldTerm = cluster.audit.term();
    try {
      cluster.awaitFullCommitAfter(oldTerm.zxid());
      cluster.nodes.freeze(old);
      long frozenAt = System.nanoTime();
      CoordinatorProcesses.Node next = cluster.nodes.awaitLeader(old);
      CatalogAudit.Term newTerm = cluster.audit.term();
      assertThat(newTerm.number()).isGreaterThan(oldTerm.number());
      System.out.printf(
          "HA freeze: %s frozen, %s leads term %d after %d ms%n",
          old, next, newTerm.number(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt));
      long refusedBefore = cluster.bank.refusedStaleTermMessages();
      SnapshotChecker.Outcome first = cluster.awaitFullCommitAfter(newTerm.zxid());
      System.out.printf(
          "HA freeze: commit %d by term %d %d ms after the freeze, the old leader still frozen%n",
          first.snapshotId(),
          newTerm.number(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt));

      cluster.nodes.thaw(old);
      // it wakes up with its coordinator running: it must find out and stop, while the new leader
      // keeps leading and committing
      await("the thawed leader steps down")
          .atMost(HaProcessCluster.WAIT)
          .during(Duration.ofSeconds(3))
          .until(() -> !cluster.nodes.serving(old) && cluster.nodes.serving(next));
      assertThat(first.kind()).as(first.detail()).isEqualTo(SnapshotChecker.Kind.CONSERVED);
      assertThat(cluster.audit.term()).isEqualTo(newTerm);
      assertThat(cluster.audit.committedAfterReplaced(newTerm))
          .as(
              "snapshots of term %d committed after term %d was taken",
              oldTerm.number(), newTerm.number())
          .isEmpty();
      await("every worker follows term " + newTerm.number())
          .atMost(HaProcessCluster.WAIT)
          .until(
              () ->
                  cluster.bank.sessions.stream().allMatch(s -> s.leaderTerm() == newTerm.number()));
      System.out.printf(
          "HA freeze result: old leader stepped down, commit %d by term %d, stale-term commands"
              + " refused by workers after the thaw %d%n",
          first.snapshotId(),
          newTerm.number(),
          cluster.bank.refusedStaleTermMessages() - refusedBefore);
    } catch (AssertionError | RuntimeException e) {
      System.out.println(cluster.nodes.tails());
      throw e;
    }
  }
}
