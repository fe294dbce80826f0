package io.cutpoint.server.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.RollbackService;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers that restart while no coordinator runs: they join the next coordinator with {@code
 * Join.fresh}, and with LATEST_COMPLETE the system is rolled back to the newest complete snapshot
 * (one worker, or the whole cluster: cold restart); workers that kept running cause nothing; with
 * NONE a fresh worker is only reported, and its old state stays lost.
 */
class FreshJoinRollbackTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static CoordinatorConfig.Builder automatic() {
    return CoordinatorConfig.builder().rollbackPolicy(RollbackPolicy.LATEST_COMPLETE);
  }

  private static List<Event> freshWarnings(RollbackCluster c) {
    return c.events(EventType.EVENT_TYPE_WORKER_JOINED).stream()
        .filter(e -> e.getMessage().contains("fresh state"))
        .toList();
  }

  /** Stops the coordinator, replaces {@code crashed} by fresh processes, starts it again. */
  private static List<RollbackCluster.Member> restartWithFresh(
      RollbackCluster c, String... crashed) {
    c.stopCoordinator();
    List<RollbackCluster.Member> back = new java.util.ArrayList<>();
    for (String w : crashed) {
      c.crashWorkerUnseen(w);
      back.add(c.launchWorker(w)); // a fresh state; it joins when the coordinator is back
    }
    c.startCoordinator();
    back.forEach(m -> m.session().joined().orTimeout(20, TimeUnit.SECONDS).join());
    return back;
  }

  private static void assertRolledBackTo(RollbackCluster c, long id) {
    await().atMost(WAIT).until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
    for (String w : c.peers().keySet()) {
      List<RecordingControl.Restored> restores = c.member(w).control().restores;
      assertThat(restores).as("restores of %s", w).hasSize(1);
      assertThat(restores.get(0).snapshotId()).isEqualTo(id);
      assertThat(restores.get(0).stateAfter())
          .as("state of %s right after the restore", w)
          .isEqualTo(c.storedState(id, w));
    }
    c.traffic(true);
    SnapshotManifest later = c.snapshot();
    assertThat(later.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(c.moneyIn(later.getSnapshotId())).isEqualTo(c.total());
    c.quiesce();
    assertThat(c.liveTotal()).isEqualTo(c.total());
    assertThat(c.store.rollbackInProgress()).isEmpty();
  }

  @Test
  void aWorkerThatRestartedWhileTheCoordinatorWasDownIsRolledBackWithTheOthers() {
    try (RollbackCluster c = new RollbackCluster(dir, automatic(), "a", "b", "c").start()) {
      c.traffic(true);
      long id = c.snapshotWithInFlight().getSnapshotId();
      long epoch = c.store.epoch();

      restartWithFresh(c, "c");

      assertRolledBackTo(c, id);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED))
          .singleElement()
          .satisfies(
              e -> assertThat(e.getMessage()).contains("worker c joined with a fresh state"));
      assertThat(c.store.epoch()).isEqualTo(epoch + 1);
    }
  }

  /**
   * The store's answer for the fresh worker comes while an operator's rollback is being prepared,
   * and that rollback is then refused: the fresh join is not forgotten, and the automatic rollback
   * starts once the preparation ends.
   */
  @Test
  void aFreshJoinDuringARefusedOperatorRollbackIsRolledBackAfterIt() throws Exception {
    try (RollbackCluster c = new RollbackCluster(dir, automatic(), "a", "b", "c").start()) {
      c.traffic(true);
      long id = c.snapshotWithInFlight().getSnapshotId();
      c.stopCoordinator();
      c.crashWorkerUnseen("c");
      c.startCoordinator();
      CorruptibleStore.Gate search = c.corruptible.holdNextFreshSearch();
      c.launchWorker("c").session().joined().orTimeout(20, TimeUnit.SECONDS).join();
      assertThat(search.reached().await(20, TimeUnit.SECONDS)).isTrue();

      CompletableFuture<RollbackResponse> refused =
          CompletableFuture.supplyAsync(
              () -> c.admin.rollback(RollbackRequest.newBuilder().setSnapshotId(999).build()));
      RollbackService rollback = c.server.context().rollback();
      await().atMost(WAIT).until(() -> rollback.status().phase() == RollbackStatus.Phase.PREPARING);
      search.open().countDown();

      assertThatThrownBy(refused::join)
          .hasCauseInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("NOT_FOUND");
      assertRolledBackTo(c, id);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED))
          .singleElement()
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .contains("worker c joined with a fresh state")
                      .contains("while another rollback was being prepared"));
    }
  }

  @Test
  void aWholeClusterRestartingFreshIsRecoveredFromTheNewestCompleteSnapshot() {
    try (RollbackCluster c = new RollbackCluster(dir, automatic(), "a", "b", "c").start()) {
      c.traffic(true);
      c.snapshotWithInFlight();
      long id = c.snapshotWithInFlight().getSnapshotId();

      restartWithFresh(c, "a", "b", "c");

      assertRolledBackTo(c, id);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED))
          .singleElement()
          .satisfies(e -> assertThat(e.getMessage()).contains("joined with a fresh state"));
    }
  }

  @Test
  void workersThatKeptRunningThroughACoordinatorRestartCauseNoRollback() {
    try (RollbackCluster c = new RollbackCluster(dir, automatic(), "a", "b", "c").start()) {
      c.traffic(true);
      long epoch = c.snapshot().getEpoch();

      restartWithFresh(c);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.peers().keySet().stream()
                      .allMatch(w -> c.state(w) == WorkerState.WORKER_STATE_RUNNING));

      // A rollback would have begun preparing while the joins were handled.
      assertThat(c.server.context().rollback().inProgress()).isFalse();
      SnapshotManifest later = c.snapshot();
      assertThat(later.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      assertThat(later.getEpoch()).isEqualTo(epoch);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED)).isEmpty();
      assertThat(freshWarnings(c)).isEmpty();
      c.peers().keySet().forEach(w -> assertThat(c.member(w).control().restores).isEmpty());
      c.quiesce();
      assertThat(c.liveTotal()).isEqualTo(c.total());
    }
  }

  @Test
  void withPolicyNoneAFreshWorkerIsReportedAndNothingElseHappens() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b", "c").start()) {
      c.traffic(true);
      long id = c.snapshotWithInFlight().getSnapshotId();
      long epoch = c.store.epoch();

      RollbackCluster.Member back = restartWithFresh(c, "c").get(0);

      await()
          .atMost(WAIT)
          .until(
              () ->
                  !freshWarnings(c).isEmpty()
                      && c.peers().keySet().stream()
                          .allMatch(w -> c.state(w) == WorkerState.WORKER_STATE_RUNNING));
      assertThat(freshWarnings(c))
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getWorkerId()).isEqualTo("c");
                assertThat(e.getSnapshotId()).isEqualTo(id);
                assertThat(e.getMessage()).contains("not rolled back");
              });
      assertThat(c.server.context().rollback().inProgress()).isFalse();
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED)).isEmpty();
      assertThat(c.rollbacks("completed") + c.rollbacks("failed")).isZero();
      assertThat(back.control().restores).isEmpty();
      assertThat(c.store.epoch()).isEqualTo(epoch);
    }
  }
}
