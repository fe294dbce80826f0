package io.cutpoint.server.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.CoordinatorConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator that starts over a store with complete snapshots (a restart, a new leader) takes
 * its first periodic snapshot as soon as every worker of the newest one is back with its state, not
 * an interval later; a worker that comes back fresh keeps that snapshot back, since its state is
 * for a rollback to decide.
 */
class PromptSnapshotAfterRestartTest {

  /** Longer than any test: no periodic attempt happens on the clock. */
  private static final Duration HOUR = Duration.ofHours(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static void restart(RollbackCluster c, String... fresh) {
    c.stopCoordinator();
    List<RollbackCluster.Member> back = new java.util.ArrayList<>();
    for (String w : fresh) {
      c.crashWorkerUnseen(w);
      back.add(c.launchWorker(w));
    }
    c.startCoordinator();
    back.forEach(m -> m.session().joined().orTimeout(20, TimeUnit.SECONDS).join());
  }

  private static List<SnapshotManifest> complete(RollbackCluster c) {
    return c.store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE));
  }

  @Test
  void aRestartedCoordinatorSnapshotsAsSoonAsTheNewestSnapshotsWorkersAreBack() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), HOUR, "a", "b", "c").start()) {
      c.traffic(true);
      long before = c.snapshot().getSnapshotId();

      restart(c);

      await().atMost(WAIT).until(() -> complete(c).get(0).getSnapshotId() > before);
      SnapshotManifest first = complete(c).get(0);
      assertThat(first.getTrigger()).isEqualTo(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC);
      assertThat(first.getTopology().getWorkersCount()).isEqualTo(3);
      assertThat(c.moneyIn(first.getSnapshotId())).isEqualTo(c.total());
    }
  }

  @Test
  void aWorkerOfTheNewestSnapshotBackWithAFreshStateKeepsThePromptSnapshotBack() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), HOUR, "a", "b", "c").start()) {
      c.traffic(true);
      c.snapshot();

      restart(c, "c");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.peers().keySet().stream()
                      .allMatch(w -> c.state(w) == WorkerState.WORKER_STATE_RUNNING));

      // The joins were handled in the events that published those states; a snapshot started by
      // one of them would show as started.
      assertThat(c.server.context().lifecycle().view().newestStarted()).isZero();
    }
  }
}
