package io.cutpoint.server.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.DeleteSnapshotRequest;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RollbackPhase;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.testing.Teller;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rollbacks over in-process gRPC with real workers and sessions: restored states equal the stored
 * pieces, recorded messages are delivered first, money is conserved, later snapshots work in the
 * new epoch; the refusals; corrupt targets; a coordinator restarted mid-rollback; the deadline.
 */
class RollbackOverGrpcTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static RollbackRequest request(long id, boolean wait) {
    return RollbackRequest.newBuilder().setSnapshotId(id).setWait(wait).build();
  }

  @Test
  void
      afterARollbackEveryWorkerHoldsItsSnapshotStateGetsTheRecordedMessagesFirstAndMoneyIsConserved() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b", "c").start()) {
      c.traffic(true);
      SnapshotManifest target = c.snapshotWithInFlight();
      long id = target.getSnapshotId();
      assertThat(c.moneyIn(id)).isEqualTo(c.total());
      c.snapshot(); // traffic and a newer snapshot past the target

      RollbackResponse r = c.admin.rollback(request(id, true));

      assertThat(r.getCompleted()).isTrue();
      assertThat(r.getSnapshotId()).isEqualTo(id);
      assertThat(r.getEpoch()).isEqualTo(target.getEpoch() + 1);
      assertThat(r.getDurationMicros()).isPositive();
      for (String w : c.peers().keySet()) {
        RecordingControl.Restored restored = c.member(w).control().restores.get(0);
        assertThat(restored.snapshotId()).isEqualTo(id);
        assertThat(restored.epoch()).isEqualTo(r.getEpoch());
        assertThat(restored.stateAfter())
            .as("state of %s right after the restore", w)
            .isEqualTo(c.storedState(id, w));
        LocalSnapshotMeta meta = c.storedMeta(id, w);
        assertThat(restored.piece().sent())
            .containsExactlyInAnyOrderEntriesOf(counters(meta.getSentList()));
        assertThat(restored.piece().received())
            .containsExactlyInAnyOrderEntriesOf(counters(meta.getReceivedList()));
      }

      // Traffic goes on; on every channel the recorded messages come first, then new ones, no gap.
      c.snapshot();
      c.quiesce();
      long replayed = 0;
      for (String to : c.peers().keySet()) {
        for (String from : c.peers().get(to)) {
          List<InTransitMessage> recorded = c.recorded(id, from, to);
          long receivedAtCut = counters(c.storedMeta(id, to).getReceivedList()).get(from);
          List<Teller.Delivery> after =
              c.member(to).teller().deliveredFrom(from).stream()
                  .filter(d -> d.epoch() == r.getEpoch())
                  .toList();
          assertThat(after.size())
              .as("%s->%s delivered after the rollback", from, to)
              .isGreaterThanOrEqualTo(recorded.size());
          for (int i = 0; i < recorded.size(); i++) {
            assertThat(after.get(i).seq()).isEqualTo(recorded.get(i).seq());
            assertThat(after.get(i).amount()).isEqualTo(Teller.amountOf(recorded.get(i).payload()));
          }
          for (int i = 0; i < after.size(); i++) {
            assertThat(after.get(i).seq())
                .as("%s->%s delivery %d", from, to, i)
                .isEqualTo(receivedAtCut + 1 + i);
          }
          replayed += recorded.size();
        }
      }
      assertThat(replayed).isEqualTo(target.getInFlightMessages()).isPositive();
      assertThat(c.liveTotal()).isEqualTo(c.total());

      SnapshotManifest later = c.snapshot();
      assertThat(later.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      assertThat(later.getEpoch()).isEqualTo(r.getEpoch());
      assertThat(c.moneyIn(later.getSnapshotId())).isEqualTo(c.total());
      assertThat(c.store.rollbackInProgress()).isEmpty();
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED)).hasSize(1);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED)).hasSize(1);
      assertThat(c.rollbacks("completed")).isEqualTo(1);
      assertThat(c.registry.find("cutpoint.rollback.duration").timer().count()).isEqualTo(1);
    }
  }

  @Test
  void aRollbackWaitsForAMissingWorkerWhichJoinsHaltedAndASecondRollbackMeanwhileIsRefused() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b", "c").start()) {
      c.traffic(true);
      long id = c.snapshotWithInFlight().getSnapshotId();
      c.crashWorker("c");

      RollbackResponse started = c.admin.rollback(request(id, false));
      assertThat(started.getCompleted()).isFalse();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.state("a") == WorkerState.WORKER_STATE_HALTED
                      && c.state("b") == WorkerState.WORKER_STATE_HALTED);
      assertThat(c.admin.getCluster(GetClusterRequest.getDefaultInstance()).getRollbackInProgress())
          .isTrue();

      assertThatThrownBy(() -> c.admin.rollback(request(id, false)))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                assertThat(e.getStatus().getDescription()).contains("in progress").contains("[c]");
              });
      assertThatThrownBy(
              () ->
                  c.admin.deleteSnapshot(
                      DeleteSnapshotRequest.newBuilder().setSnapshotId(id).build()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));

      RollbackCluster.Member back = c.startWorker("c"); // a fresh process: its state is gone
      await()
          .atMost(WAIT)
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
      assertThat(back.control().restores).hasSize(1);
      assertThat(back.control().restores.get(0).stateAfter()).isEqualTo(c.storedState(id, "c"));
      assertThat(back.worker().epoch()).isEqualTo(started.getEpoch());

      c.quiesce();
      assertThat(c.liveTotal()).isEqualTo(c.total());
      assertThat(c.snapshot().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    }
  }

  @Test
  void anUnknownSnapshotIsNotFoundAndIdZeroIsInvalid() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b").start()) {
      assertThatThrownBy(() -> c.admin.rollback(request(999, true)))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
                assertThat(e.getStatus().getDescription()).contains("999");
              });
      assertThatThrownBy(() -> c.admin.rollback(request(0, true)))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
      // A refused request leaves nothing in progress.
      assertThat(c.admin.getCluster(GetClusterRequest.getDefaultInstance()).getRollbackInProgress())
          .isFalse();
      long id = c.snapshot().getSnapshotId();
      assertThat(c.admin.rollback(request(id, true)).getCompleted()).isTrue();
    }
  }

  @Test
  void aTargetDeletedAfterItsChecksIsNotFoundNotAnInternalError() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b").start()) {
      long id = c.snapshot().getSnapshotId();
      long epoch = c.store.epoch();
      c.corruptible.beforeNextBeginRollback(() -> assertThat(c.store.delete(id)).isTrue());

      assertThatThrownBy(() -> c.admin.rollback(request(id, true)))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
                assertThat(e.getStatus().getDescription())
                    .contains("snapshot " + id + " was deleted while the rollback");
              });
      assertThat(c.store.epoch()).isEqualTo(epoch);
      assertThat(c.store.rollbackInProgress()).isEmpty();
      assertThat(c.state("a")).isEqualTo(WorkerState.WORKER_STATE_RUNNING);
      assertThat(c.snapshot().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    }
  }

  @Test
  void anOperatorsRollbackToACorruptSnapshotIsRefusedWithDataLossAndHaltsNobody() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b").start()) {
      c.traffic(true);
      long id = c.snapshot().getSnapshotId();
      long epoch = c.store.epoch();
      c.corruptible.corrupt(id);

      assertThatThrownBy(() -> c.admin.rollback(request(id, true)))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DATA_LOSS);
                assertThat(e.getStatus().getDescription())
                    .contains("snapshot " + id)
                    .contains("checksum")
                    .contains("older snapshot");
              });
      assertThat(c.store.epoch()).isEqualTo(epoch);
      assertThat(c.store.rollbackInProgress()).isEmpty();
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED)).isEmpty();
      assertThat(c.state("a")).isEqualTo(WorkerState.WORKER_STATE_RUNNING);
      assertThat(c.member("a").control().restores).isEmpty();
      assertThat(c.snapshot().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    }
  }

  @Test
  void anAutomaticRollbackAfterAWorkerIsLostFallsBackToTheNewestSnapshotThatVerifies() {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder().rollbackPolicy(RollbackPolicy.LATEST_COMPLETE);
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b", "c").start()) {
      c.traffic(true);
      long older = c.snapshot().getSnapshotId();
      long newest = c.snapshot().getSnapshotId();
      c.corruptible.corrupt(newest);

      c.crashWorker("c");
      await().atMost(WAIT).until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).isEmpty());
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_FALLBACK))
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getSnapshotId()).isEqualTo(newest);
                assertThat(e.getMessage())
                    .contains("checksum")
                    .contains("falling back to snapshot " + older);
              });
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).get(0).getSnapshotId())
          .isEqualTo(older);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).get(0).getMessage())
          .contains("worker c was lost");

      RollbackCluster.Member back = c.startWorker("c");
      await()
          .atMost(WAIT)
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
      for (String w : List.of("a", "b")) {
        assertThat(c.member(w).control().restores)
            .singleElement()
            .satisfies(r -> assertThat(r.snapshotId()).isEqualTo(older));
      }
      assertThat(back.control().restores.get(0).stateAfter()).isEqualTo(c.storedState(older, "c"));
      c.quiesce();
      assertThat(c.liveTotal()).isEqualTo(c.total());
    }
  }

  @Test
  void aCoordinatorStoppedInTheMiddleOfARollbackFinishesItWhenItStartsAgain() {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b", "c").start()) {
      c.traffic(true);
      long id = c.snapshotWithInFlight().getSnapshotId();
      c.crashWorker("c");
      long firstEpoch = c.admin.rollback(request(id, false)).getEpoch();
      await().atMost(WAIT).until(() -> c.state("a") == WorkerState.WORKER_STATE_HALTED);

      c.stopCoordinator();
      c.startCoordinator();
      assertThat(c.store.rollbackInProgress()).isPresent();
      c.startWorker("c");

      await()
          .atMost(WAIT)
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
      assertThat(c.store.rollbackInProgress()).isEmpty();
      assertThat(c.store.epoch()).isEqualTo(firstEpoch + 1);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED))
          .last()
          .satisfies(
              e -> assertThat(e.getMessage()).contains("resumed after a coordinator restart"));
      for (String w : c.peers().keySet()) {
        List<RecordingControl.Restored> restores = c.member(w).control().restores;
        RecordingControl.Restored last = restores.get(restores.size() - 1);
        assertThat(last.snapshotId()).isEqualTo(id);
        assertThat(last.epoch()).isEqualTo(firstEpoch + 1);
        assertThat(last.stateAfter()).isEqualTo(c.storedState(id, w));
      }
      c.traffic(true);
      SnapshotManifest later = c.snapshot();
      assertThat(later.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      assertThat(later.getEpoch()).isEqualTo(firstEpoch + 1);
      c.quiesce();
      assertThat(c.liveTotal()).isEqualTo(c.total());
    }
  }

  @Test
  void aRollbackWhoseWorkerNeverReturnsFailsAtTheDeadlineAndTheWorkersStayHaltedUntilOneSucceeds() {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder().rollbackDeadline(Duration.ofSeconds(1));
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b").start()) {
      long id = c.snapshot().getSnapshotId();
      c.crashWorker("b");

      assertThatThrownBy(() -> c.admin.rollback(request(id, true)))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
                assertThat(e.getStatus().getDescription()).contains("deadline").contains("[b]");
              });
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_FAILED)).hasSize(1);
      assertThat(c.rollbacks("failed")).isEqualTo(1);
      assertThat(
              c.admin.getCluster(GetClusterRequest.getDefaultInstance()).getRollback().getPhase())
          .isEqualTo(RollbackPhase.ROLLBACK_PHASE_FAILED);
      assertThat(c.state("a")).isEqualTo(WorkerState.WORKER_STATE_HALTED);

      c.startWorker("b");
      // wait_timeout_ms is a uint32: its largest value waits, it does not time out at once
      RollbackResponse again =
          c.admin.rollback(request(id, true).toBuilder().setWaitTimeoutMs(-1).build());
      assertThat(again.getCompleted()).isTrue();
      assertThat(c.admin.getCluster(GetClusterRequest.getDefaultInstance()).getRollbackInProgress())
          .isFalse();
      assertThat(c.member("b").control().restores.get(0).stateAfter())
          .isEqualTo(c.storedState(id, "b"));
    }
  }

  @Test
  void anAutomaticRollbackWhoseRestoreFailedWithEveryWorkerLiveIsRetriedAfterTheDeadline() {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder()
            .rollbackPolicy(RollbackPolicy.LATEST_COMPLETE)
            .rollbackDeadline(Duration.ofSeconds(1));
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b", "c").start()) {
      c.traffic(true);
      long id = c.snapshotWithInFlight().getSnapshotId();
      c.member("a").control().failNextRestore = true;
      c.crashWorker("c");
      c.startWorker("c");

      await()
          .atMost(WAIT)
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_FAILED)).isNotEmpty();
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED))
          .last()
          .satisfies(e -> assertThat(e.getMessage()).contains("every worker is live"));
      assertThat(c.member("a").control().restores)
          .singleElement()
          .satisfies(r -> assertThat(r.stateAfter()).isEqualTo(c.storedState(id, "a")));
      c.quiesce();
      assertThat(c.liveTotal()).isEqualTo(c.total());
    }
  }

  @Test
  void anAutomaticRollbackThatFailedAtItsDeadlineIsRetriedWhenEveryWorkerIsBack() {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder()
            .rollbackPolicy(RollbackPolicy.LATEST_COMPLETE)
            .rollbackDeadline(Duration.ofSeconds(1));
    try (RollbackCluster c = new RollbackCluster(dir, config, "a", "b").start()) {
      c.traffic(true);
      long id = c.snapshot().getSnapshotId();
      c.crashWorker("b");
      await().atMost(WAIT).until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_FAILED).isEmpty());
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_FAILED).get(0).getMessage())
          .contains("[b]");
      assertThat(c.state("a")).isEqualTo(WorkerState.WORKER_STATE_HALTED);
      assertThatThrownBy(c::snapshot)
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                assertThat(e.getStatus().getDescription()).contains("rollback");
              });

      RollbackCluster.Member back = c.startWorker("b");
      await()
          .atMost(WAIT)
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED))
          .last()
          .satisfies(e -> assertThat(e.getMessage()).contains("retry after a failed rollback"));
      assertThat(back.control().restores)
          .singleElement()
          .satisfies(r -> assertThat(r.stateAfter()).isEqualTo(c.storedState(id, "b")));
      c.quiesce();
      assertThat(c.liveTotal()).isEqualTo(c.total());
      assertThat(c.rollbacks("failed")).isEqualTo(1);
      assertThat(c.rollbacks("completed")).isEqualTo(1);
    }
  }

  private static java.util.Map<String, Long> counters(List<ChannelCounter> list) {
    java.util.Map<String, Long> out = new java.util.TreeMap<>();
    list.forEach(cc -> out.put(cc.getPeer(), cc.getCount()));
    return out;
  }
}
