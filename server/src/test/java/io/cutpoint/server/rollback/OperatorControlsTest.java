package io.cutpoint.server.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.CancelRollbackRequest;
import io.cutpoint.api.v1.CancelRollbackResponse;
import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.RemoveWorkerRequest;
import io.cutpoint.api.v1.RollbackPhase;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.SnapshotsBlockedReason;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.CoordinatorConfig;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator does about a lost worker and a stuck rollback, against a real coordinator and
 * real workers over in-process gRPC: remove the worker, forget it after a while, see why snapshots
 * are blocked, see a failed rollback as failed, cancel it.
 */
class OperatorControlsTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static void assertStatus(ThrowingCallable call, Status.Code code, String text) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(e.getStatus().getDescription()).contains(text);
            });
  }

  private static ClusterView cluster(RollbackCluster c) {
    return c.admin.getCluster(GetClusterRequest.getDefaultInstance());
  }

  private static RemoveWorkerRequest remove(String id) {
    return RemoveWorkerRequest.newBuilder().setWorkerId(id).build();
  }

  @Test
  void aFailedRollbackReadsAsFailedKeepsTheWorkersHaltedAndIsResolvedByCancelling() {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder().rollbackDeadline(Duration.ofSeconds(1));
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b").start()) {
      long id = c.snapshot().getSnapshotId();
      c.crashWorker("b");
      assertThatThrownBy(
              () ->
                  c.admin.rollback(
                      RollbackRequest.newBuilder().setSnapshotId(id).setWait(true).build()))
          .isInstanceOf(StatusRuntimeException.class);

      ClusterView failed = cluster(c);
      assertThat(failed.getRollbackInProgress()).isFalse();
      assertThat(failed.getRollback().getPhase()).isEqualTo(RollbackPhase.ROLLBACK_PHASE_FAILED);
      assertThat(failed.getRollback().getDetail()).contains("deadline");
      assertThat(failed.getRollback().getWaitingForList()).containsExactly("b");
      assertThat(c.state("a")).isEqualTo(WorkerState.WORKER_STATE_HALTED);
      assertStatus(
          () -> c.admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()),
          Status.Code.FAILED_PRECONDITION,
          "the rollback to snapshot " + id + " failed");
      assertStatus(
          () -> c.admin.removeWorker(remove("b")),
          Status.Code.FAILED_PRECONDITION,
          "the failed rollback to snapshot " + id + " restores it; retry or cancel it first");

      assertThat(c.member("a").control().resumes).isEmpty();
      CancelRollbackResponse cancelled =
          c.admin.cancelRollback(CancelRollbackRequest.getDefaultInstance());
      assertThat(cancelled.getSnapshotId()).isEqualTo(id);
      assertThat(cancelled.getResumedUnrestoredList()).containsExactly("a");
      await().atMost(WAIT).until(() -> c.state("a") == WorkerState.WORKER_STATE_RUNNING);
      // the worker itself runs again, not just its entry in the coordinator's view
      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.member("a").control().resumes.equals(java.util.List.of(cancelled.getEpoch())));
      assertThat(cluster(c).getRollback().getPhase()).isEqualTo(RollbackPhase.ROLLBACK_PHASE_NONE);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_CANCELLED)).hasSize(1);
      assertStatus(
          () -> c.admin.cancelRollback(CancelRollbackRequest.getDefaultInstance()),
          Status.Code.FAILED_PRECONDITION,
          "no rollback runs or failed");

      c.admin.removeWorker(remove("b"));
      assertThat(cluster(c).getWorkersList())
          .extracting(w -> w.getDecl().getWorkerId())
          .containsExactly("a");
      assertThat(c.events(EventType.EVENT_TYPE_WORKER_REMOVED))
          .singleElement()
          .satisfies(e -> assertThat(e.getWorkerId()).isEqualTo("b"));
    }
  }

  @Test
  void aRollbackResumedAfterARestartThatCannotStartNamesItsTargetAndCancelsIt() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b").start()) {
      long id = c.snapshot().getSnapshotId();
      c.crashWorker("b");
      c.admin.rollback(RollbackRequest.newBuilder().setSnapshotId(id).build());
      await().atMost(WAIT).until(() -> c.state("a") == WorkerState.WORKER_STATE_HALTED);
      c.stopCoordinator();
      c.corruptible.corrupt(id); // the only snapshot: the resumed rollback has no target
      c.startCoordinator();

      await()
          .atMost(WAIT)
          .until(() -> cluster(c).getRollback().getPhase() == RollbackPhase.ROLLBACK_PHASE_FAILED);
      assertThat(cluster(c).getRollback().getSnapshotId()).isEqualTo(id);
      assertThat(cluster(c).getRollback().getDetail()).contains("could not start");
      // its retry would wait for a removed worker until its deadline, again and again
      assertStatus(
          () -> c.admin.removeWorker(remove("b")),
          Status.Code.FAILED_PRECONDITION,
          "the rollback to snapshot " + id + " that resumed after a restart could not start");
      CancelRollbackResponse cancelled =
          c.admin.cancelRollback(CancelRollbackRequest.getDefaultInstance());
      assertThat(cancelled.getSnapshotId()).isEqualTo(id);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_CANCELLED))
          .last()
          .satisfies(e -> assertThat(e.getMessage()).contains("snapshot " + id));
      await().atMost(WAIT).until(() -> c.store.rollbackInProgress().isEmpty());
    }
  }

  @Test
  void aWorkerThatCannotRestoreFailsTheRollbackAtOnceWithItsReason() {
    // the deadline is far beyond the wait: only the worker's answer can fail the run in time
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder().rollbackDeadline(Duration.ofMinutes(10));
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b").start()) {
      long id = c.snapshot().getSnapshotId();
      c.member("a").control().failNextRestore = true;
      c.admin.rollback(RollbackRequest.newBuilder().setSnapshotId(id).build());

      await()
          .atMost(WAIT)
          .until(() -> cluster(c).getRollback().getPhase() == RollbackPhase.ROLLBACK_PHASE_FAILED);
      assertThat(cluster(c).getRollback().getDetail())
          .contains("worker a could not restore snapshot " + id)
          .contains("the application refused the restored state");
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_FAILED))
          .singleElement()
          .satisfies(e -> assertThat(e.getMessage()).contains("worker a could not restore"));
      assertStatus(
          () -> c.admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()),
          Status.Code.FAILED_PRECONDITION,
          "the rollback to snapshot " + id + " failed");
      assertThat(c.member("a").control().resumes).as("a stays halted").isEmpty();
    }
  }

  @Test
  void cancellingWhileAWorkerRestoresReportsItAsResumingAfterItsRestoreNotAsUnrestored() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b").start()) {
      long id = c.snapshot().getSnapshotId();
      CompletableFuture<Void> letGo = new CompletableFuture<>();
      c.member("a").control().holdRestore = letGo;
      c.admin.rollback(RollbackRequest.newBuilder().setSnapshotId(id).build());
      await().atMost(WAIT).until(() -> c.member("a").control().restoreReached.isDone());
      await().atMost(WAIT).until(() -> c.member("b").control().restores.size() == 1);
      await()
          .atMost(WAIT)
          .until(() -> cluster(c).getRollback().getWaitingForList().equals(List.of("a")));

      CancelRollbackResponse cancelled =
          c.admin.cancelRollback(CancelRollbackRequest.getDefaultInstance());
      assertThat(cancelled.getResumedUnrestoredList())
          .as("a's download was under way: its restore ends before it takes the resume")
          .isEmpty();
      assertThat(cancelled.getResumedAfterRestoreList()).containsExactly("a");
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_CANCELLED))
          .singleElement()
          .satisfies(
              e -> assertThat(e.getMessage()).contains("once their restore under way ends: [a]"));

      letGo.complete(null);
      RecordingControl a = c.member("a").control();
      await().atMost(WAIT).until(() -> a.resumes.contains(cancelled.getEpoch()));
      assertThat(a.restores)
          .as("a resumed with the snapshot's state, restored before the resume")
          .singleElement()
          .satisfies(r -> assertThat(r.snapshotId()).isEqualTo(id));
    }
  }

  @Test
  void aRunningRollbackNamesTheWorkersItWaitsForAndCancellingItResumesTheOthers() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b", "c").start()) {
      long id = c.snapshot().getSnapshotId();
      c.crashWorker("c");
      c.admin.rollback(RollbackRequest.newBuilder().setSnapshotId(id).build());
      await()
          .atMost(WAIT)
          .until(() -> cluster(c).getRollback().getWaitingForList().equals(java.util.List.of("c")));
      ClusterView running = cluster(c);
      assertThat(running.getRollback().getPhase()).isEqualTo(RollbackPhase.ROLLBACK_PHASE_RUNNING);
      assertThat(running.getRollback().getDetail()).contains("workers not rejoined: [c]");
      assertThat(running.getRollbackInProgress()).isTrue();
      assertStatus(
          () -> c.admin.removeWorker(remove("c")),
          Status.Code.FAILED_PRECONDITION,
          "wait for it or cancel it first");

      CancelRollbackResponse cancelled =
          c.admin.cancelRollback(CancelRollbackRequest.getDefaultInstance());
      assertThat(cancelled.getResumedUnrestoredList()).containsExactly("a", "b");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.state("a") == WorkerState.WORKER_STATE_RUNNING
                      && c.state("b") == WorkerState.WORKER_STATE_RUNNING);
      assertThat(c.rollbacks("failed")).isEqualTo(1);
    }
  }

  @Test
  void aWorkerLostLongerThanForgetLostAfterIsRemoved() {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder().forgetLostAfter(Duration.ofMillis(500));
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b").start()) {
      c.crashWorkerUnseen("b"); // the coordinator sees it lost, then forgets it
      await().atMost(WAIT).until(() -> !c.events(EventType.EVENT_TYPE_WORKER_REMOVED).isEmpty());
      assertThat(c.events(EventType.EVENT_TYPE_WORKER_LOST))
          .extracting(Event::getWorkerId)
          .containsExactly("b");
      Event removed = c.events(EventType.EVENT_TYPE_WORKER_REMOVED).get(0);
      assertThat(removed.getWorkerId()).isEqualTo("b");
      assertThat(removed.getMessage()).contains("forget-lost-after");
      assertThat(cluster(c).getWorkersList())
          .extracting(w -> w.getDecl().getWorkerId())
          .containsExactly("a");
      assertThat(c.state("a")).isEqualTo(WorkerState.WORKER_STATE_RUNNING);
    }
  }

  @Test
  void aBlockedPeriodicSnapshotIsReportedOncePerChangeOfReasonWithTheWorkersThatBlockIt() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b").start()) {
      c.crashWorker("b");
      await().atMost(WAIT).until(() -> c.state("b") == WorkerState.WORKER_STATE_LOST);
      for (int i = 0; i < 3; i++) {
        c.server.context().schedule().attempt().join();
      }
      assertThat(c.events(EventType.EVENT_TYPE_SNAPSHOTS_BLOCKED))
          .singleElement()
          .satisfies(e -> assertThat(e.getMessage()).contains("workers_lost").contains("[b]"));
      assertThat(cluster(c).getSnapshotsBlocked().getReason())
          .isEqualTo(SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_WORKERS_LOST);
      assertThat(cluster(c).getSnapshotsBlocked().getWorkersList()).containsExactly("b");
      assertThat(blocked(c, "workers_lost")).isEqualTo(1);

      c.startWorker("b");
      c.server.context().schedule().attempt().join();
      c.server.context().schedule().attempt().join();
      assertThat(c.events(EventType.EVENT_TYPE_SNAPSHOTS_UNBLOCKED)).hasSize(1);
      assertThat(c.events(EventType.EVENT_TYPE_SNAPSHOTS_BLOCKED)).hasSize(1);
      assertThat(cluster(c).hasSnapshotsBlocked()).isFalse();
      assertThat(blocked(c, "workers_lost")).isZero();
    }
  }

  private static double blocked(RollbackCluster c, String reason) {
    return c.registry.get("cutpoint.snapshots.blocked").tag("reason", reason).gauge().value();
  }
}
