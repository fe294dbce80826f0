package io.cutpoint.server.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.CoordinatorConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Automatic rollback when a retry or a resumed rollback cannot go as planned: retries go on, and a
 * fallback goes back in time, never forward.
 */
class RollbackFallbackTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /**
   * With LATEST_COMPLETE a failed rollback is retried once per rollback deadline while every worker
   * is live (recovery.md, section 4). A retry whose preparation failed (a passing store error) was
   * the last one: the cluster stayed halted.
   */
  @Test
  void aRetryThatCouldNotStartIsTriedAgain() {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder()
            .rollbackPolicy(RollbackPolicy.LATEST_COMPLETE)
            .rollbackDeadline(Duration.ofSeconds(1));
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b", "c").start()) {
      c.snapshot();
      c.member("a").control().failNextRestore = true; // the first run fails with all live
      // the first beginRollback goes through; the second (the first retry) fails once
      c.corruptible.beforeNextBeginRollback(
          () ->
              c.corruptible.beforeNextBeginRollback(
                  () -> {
                    throw new IllegalStateException("simulated transient store failure");
                  }));
      c.crashWorker("c");
      c.startWorker("c");

      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.events(EventType.EVENT_TYPE_ROLLBACK_FAILED).stream()
                      .anyMatch(e -> e.getMessage().contains("simulated transient")));
      // every worker is live; the docs promise another retry one deadline (1 s) later
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
    }
  }

  /**
   * An automatic target deleted (by retention, or an operator) after its checks and before the
   * rollback's epoch was persisted: the rollback chose again rather than give up. It gave up, and
   * from a running cluster nothing retried: the survivors ran on without the lost worker's state.
   */
  @Test
  void anAutomaticTargetDeletedBeforeItIsPersistedIsChosenAgain() {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder().rollbackPolicy(RollbackPolicy.LATEST_COMPLETE);
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b", "c").start()) {
      long s0 = c.snapshot().getSnapshotId();
      long s1 = c.snapshot().getSnapshotId();
      c.corruptible.beforeNextBeginRollback(
          () -> assertThat(c.corruptible.asStore().delete(s1)).isTrue());
      c.crashWorker("c");

      await()
          .atMost(WAIT)
          .until(
              () ->
                  !c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).isEmpty()
                      || !c.events(EventType.EVENT_TYPE_ROLLBACK_FAILED).isEmpty());
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_FAILED)).isEmpty();
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED))
          .singleElement()
          .satisfies(e -> assertThat(e.getSnapshotId()).as("s1 is gone").isEqualTo(s0));
      c.startWorker("c");
      await()
          .atMost(WAIT)
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
    }
  }

  /**
   * A rollback resumed after a restart whose target no longer verifies falls back to the newest
   * older snapshot that does (recovery.md, sections 5 and 6). It went forward, to the newest one:
   * the state the operator was rolling back from.
   */
  @Test
  void aResumedRollbackWhoseTargetIsDamagedFallsBackToAnOlderSnapshot() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b").start()) {
      long s0 = c.snapshot().getSnapshotId();
      long s1 = c.snapshot().getSnapshotId();
      long s2 = c.snapshot().getSnapshotId();
      c.crashWorker("b");
      c.admin.rollback(RollbackRequest.newBuilder().setSnapshotId(s1).build());
      await().atMost(WAIT).until(() -> c.state("a") == WorkerState.WORKER_STATE_HALTED);
      c.stopCoordinator();
      c.corruptible.corrupt(s1);
      c.startCoordinator();

      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).stream()
                      .anyMatch(e -> e.getMessage().contains("resumed after a coordinator")));
      long target =
          c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).stream()
              .filter(e -> e.getMessage().contains("resumed after a coordinator"))
              .findFirst()
              .orElseThrow()
              .getSnapshotId();
      assertThat(target)
          .as("the resumed rollback's new target (after %d, before %d)", s2, s1)
          .isEqualTo(s0);
    }
  }
}
