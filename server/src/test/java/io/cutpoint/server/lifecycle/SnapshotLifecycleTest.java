package io.cutpoint.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.WorkerState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotLifecycleTest {

  @Test
  void aSnapshotOfTheRingStartsAtOneInitiatorAndCommitsWhenEveryPieceArrived() {
    LifecycleFixture f = new LifecycleFixture().ring();
    long id = f.start();
    assertThat(f.commands).containsExactly("start a " + id);
    assertThat(f.store.calls()).containsExactly("pending " + id);

    List<Piece> pieces = LifecycleFixture.quietRing(id);
    assertThat(f.deliver(pieces.get(0))).isEqualTo(AckResult.SUCCESS);
    assertThat(f.deliver(pieces.get(1))).isEqualTo(AckResult.SUCCESS);
    assertThat(f.store.calls()).doesNotContain("commit " + id);
    assertThat(f.deliver(pieces.get(2))).isEqualTo(AckResult.SUCCESS);

    assertThat(f.store.calls()).contains("commit " + id);
    assertThat(f.outcomes).containsExactly(id + " COMPLETE");
    SnapshotManifest committed = f.store.manifest(id).orElseThrow();
    assertThat(committed.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(committed.getPiecesCount()).isEqualTo(3);
    assertThat(committed.getTotalStateBytes()).isEqualTo(30);
    assertThat(f.lifecycle.pendingIds()).isEmpty();
  }

  /**
   * A trigger's caller waits on the outcome; the listeners (metrics, events, the maintenance that
   * retention and analysis run on) are not on its path, so they hear of the end after it is
   * answered, committed or aborted.
   */
  @Test
  void aWaitingCallerIsAnsweredBeforeTheListenersHear() {
    LifecycleFixture f = new LifecycleFixture().ring();
    TriggerResult.Started first =
        (TriggerResult.Started)
            f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null).join();
    var unused = first.outcome().thenRun(() -> f.outcomes.add("answered"));
    LifecycleFixture.quietRing(first.snapshotId()).forEach(f::deliver);
    assertThat(f.outcomes).containsExactly("answered", first.snapshotId() + " COMPLETE");

    f.outcomes.clear();
    TriggerResult.Started second =
        (TriggerResult.Started)
            f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null).join();
    var unused2 = second.outcome().thenRun(() -> f.outcomes.add("answered"));
    f.scheduler.advance(Duration.ofSeconds(10));
    assertThat(f.outcomes).containsExactly("answered", second.snapshotId() + " ABORTED TIMEOUT");
  }

  @Test
  void aSnapshotStillPendingAtTheTimeoutIsAbortedAndEveryWorkerIsTold() {
    LifecycleFixture f = new LifecycleFixture().ring();
    long id = f.start();
    f.deliver(LifecycleFixture.quietRing(id).get(0));
    f.scheduler.advance(Duration.ofSeconds(9));
    assertThat(f.lifecycle.pendingIds()).containsExactly(id);

    f.scheduler.advance(Duration.ofSeconds(1));

    assertThat(f.lifecycle.pendingIds()).isEmpty();
    assertThat(f.outcomes).containsExactly(id + " ABORTED TIMEOUT");
    assertThat(f.commands).contains("abort a " + id, "abort b " + id, "abort c " + id);
    assertThat(f.store.manifest(id).orElseThrow().getReason())
        .contains("timed out")
        .contains("[b, c]");
  }

  @Test
  void theTimeoutOfACommittedSnapshotDoesNothing() {
    LifecycleFixture f = new LifecycleFixture().ring();
    long id = f.start();
    LifecycleFixture.quietRing(id).forEach(f::deliver);
    f.commands.clear();

    f.scheduler.advance(Duration.ofMinutes(1));

    assertThat(f.commands).isEmpty();
    assertThat(f.outcomes).containsExactly(id + " COMPLETE");
  }

  @Test
  void noMoreThanTheMaximumOfSnapshotsArePendingAtOnce() {
    LifecycleFixture one = new LifecycleFixture().ring();
    one.start();
    TriggerResult second =
        one.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC, null).join();
    assertThat(second)
        .isInstanceOfSatisfying(
            TriggerResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(TriggerResult.Reason.TOO_MANY_PENDING));

    LifecycleFixture two = new LifecycleFixture(Duration.ofSeconds(10), Duration.ZERO, 2, 3).ring();
    long a = two.start();
    long b = two.start();
    assertThat(two.lifecycle.pendingIds()).containsExactly(a, b);
  }

  @Test
  void theMinimumPauseSeparatesTheEndOfOneSnapshotFromTheStartOfTheNext() {
    LifecycleFixture f =
        new LifecycleFixture(Duration.ofSeconds(10), Duration.ofSeconds(5), 1, 3).ring();
    long id = f.start();
    LifecycleFixture.quietRing(id).forEach(f::deliver);

    f.scheduler.advance(Duration.ofSeconds(4));
    assertThat(f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC, null).join())
        .isInstanceOfSatisfying(
            TriggerResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(TriggerResult.Reason.TOO_SOON));
    f.scheduler.advance(Duration.ofSeconds(1));
    assertThat(f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC, null).join())
        .isInstanceOf(TriggerResult.Started.class);
  }

  @Test
  void lateDuplicateAndBogusPiecesAreToldApart() {
    LifecycleFixture f = new LifecycleFixture().ring();
    long id = f.start();
    List<Piece> pieces = LifecycleFixture.quietRing(id);
    assertThat(f.deliver(pieces.get(0))).isEqualTo(AckResult.SUCCESS);
    assertThat(f.deliver(pieces.get(0))).isEqualTo(AckResult.DUPLICATE);
    assertThat(f.lifecycle.view().ended(id)).isFalse();

    f.scheduler.advance(Duration.ofSeconds(10)); // times out
    assertThat(f.deliver(pieces.get(1))).isEqualTo(AckResult.DISCARDED);
    assertThat(f.lifecycle.view().ended(id)).isTrue();
    assertThat(f.deliver(LifecycleFixture.quietRing(999).get(1))).isEqualTo(AckResult.UNKNOWN);
    assertThat(f.lifecycle.view().ended(999)).isFalse();
  }

  @Test
  void theFirstPieceDeliveredIsTakenAndTheViewShowsItBeforeTheEventEnds() {
    LifecycleFixture f = new LifecycleFixture().ring();
    long id = f.start();
    Piece a = LifecycleFixture.quietRing(id).get(0);
    assertThat(f.lifecycle.view().pending().get(id).manifest().getPiecesList()).isEmpty();
    assertThat(f.lifecycle.view().pending().get(id).delivered("a")).isFalse();

    assertThat(f.lifecycle.acknowledge(a)).isEqualTo(AckResult.SUCCESS);

    // an upload's header reads the view: a second upload of the piece is refused there
    PendingManifest seen = f.lifecycle.view().pending().get(id);
    assertThat(seen.delivered("a")).isTrue();
    assertThat(seen.delivered("b")).isFalse();
    assertThat(seen.manifest().getPiecesList())
        .extracting(p -> p.getWorkerId())
        .containsExactly("a");
    assertThat(f.lifecycle.acknowledge(a)).isEqualTo(AckResult.DUPLICATE);
    assertThat(seen.manifest().getTopology().getWorkersList())
        .extracting(w -> w.getWorkerId())
        .containsExactly("a", "b", "c");
    assertThat(seen.covers("c")).isTrue();
    assertThat(seen.covers("d")).isFalse();
  }

  @Test
  void anInconsistentCutIsStoredAsFailedWithItsViolations() {
    LifecycleFixture f = new LifecycleFixture().ring();
    long id = f.start();
    f.deliver(LifecycleFixture.piece(id, "a", Map.of("b", 5L), Map.of("c", 0L), Map.of(), null));
    // b claims to have received 7 of a's messages, but a recorded only 5 sent: inconsistent
    f.deliver(LifecycleFixture.piece(id, "b", Map.of("c", 0L), Map.of("a", 7L), Map.of(), "a"));
    f.deliver(LifecycleFixture.piece(id, "c", Map.of("a", 0L), Map.of("b", 0L), Map.of(), "b"));

    assertThat(f.outcomes).containsExactly(id + " FAILED CUT_INVALID");
    assertThat(f.store.calls()).doesNotContain("commit " + id);
    SnapshotManifest failed = f.store.manifest(id).orElseThrow();
    assertThat(failed.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_FAILED);
    assertThat(failed.getViolationsList())
        .singleElement()
        .satisfies(v -> assertThat(v.getMessage()).contains("received 7 but only 5 sent"));
  }

  @Test
  void recordedMessagesMustFillTheGapBetweenTheCounters() {
    LifecycleFixture f = new LifecycleFixture().ring();
    // a initiates; c had sent 2 messages to a before its marker, a recorded only message 1
    long id = f.start();
    f.deliver(
        LifecycleFixture.piece(
            id, "a", Map.of("b", 0L), Map.of("c", 0L), Map.of("c", List.of(1L)), null));
    f.deliver(LifecycleFixture.piece(id, "b", Map.of("c", 0L), Map.of("a", 0L), Map.of(), "a"));
    f.deliver(LifecycleFixture.piece(id, "c", Map.of("a", 2L), Map.of("b", 0L), Map.of(), "b"));
    assertThat(f.outcomes).containsExactly(id + " FAILED CUT_INVALID");

    long next = f.start();
    f.deliver(
        LifecycleFixture.piece(
            next, "a", Map.of("b", 0L), Map.of("c", 0L), Map.of("c", List.of(1L, 2L)), null));
    f.deliver(LifecycleFixture.piece(next, "b", Map.of("c", 0L), Map.of("a", 0L), Map.of(), "a"));
    f.deliver(LifecycleFixture.piece(next, "c", Map.of("a", 2L), Map.of("b", 0L), Map.of(), "b"));
    assertThat(f.outcomes).endsWith(next + " COMPLETE");
    assertThat(f.store.manifest(next).orElseThrow().getInFlightMessages()).isEqualTo(2);
  }

  @Test
  void aLostWorkerAbortsThePendingSnapshotsThatCoverIt() {
    LifecycleFixture f = new LifecycleFixture().ring();
    long id = f.start();
    f.lifecycle.workerLost("b");
    assertThat(f.outcomes).containsExactly(id + " ABORTED WORKER_LOST");
    assertThat(f.commands).contains("abort a " + id, "abort c " + id);
  }

  @Test
  void aTopologyChangeAbortsEveryPendingSnapshot() {
    LifecycleFixture f = new LifecycleFixture(Duration.ofSeconds(10), Duration.ZERO, 2, 3).ring();
    long one = f.start();
    long two = f.start();
    f.lifecycle.topologyChanged("b");
    assertThat(f.outcomes)
        .containsExactly(one + " ABORTED TOPOLOGY_CHANGED", two + " ABORTED TOPOLOGY_CHANGED");
    assertThat(f.lifecycle.pendingIds()).isEmpty();
  }

  @Test
  void aPausedLifecycleStartsNothingUntilResumed() {
    LifecycleFixture f = new LifecycleFixture().ring();
    f.lifecycle.pause(SnapshotBlock.Reason.ROLLBACK_IN_PROGRESS, "rollback");
    assertThat(refusal(f)).contains("paused: rollback");
    f.lifecycle.resume();
    f.start();
  }

  @Test
  void aWorkerGivingUpItsLocalSnapshotAbortsIt() {
    LifecycleFixture f = new LifecycleFixture().ring();
    long id = f.start();
    f.lifecycle.localFailure(id, "c", "recording limit");
    assertThat(f.outcomes).containsExactly(id + " ABORTED LOCAL_FAILURE");
    assertThat(f.store.manifest(id).orElseThrow().getReason()).contains("recording limit");
  }

  @Test
  void snapshotsWaitUntilTheTopologyIsClosedAndEveryWorkerIsLive() {
    LifecycleFixture f = new LifecycleFixture();
    assertThat(refusal(f)).contains("no workers");
    f.join("a", List.of("b"), List.of());
    assertThat(refusal(f)).contains("not closed").contains("a->b");
    long tokenB = f.join("b", List.of(), List.of("a"));
    assertThat(f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC, null).join())
        .isInstanceOf(TriggerResult.Started.class);

    LifecycleFixture g = new LifecycleFixture().ring();
    g.membership.lost("b", g.membership.token("b"));
    assertThat(refusal(g)).contains("without a live session").contains("b");
    assertThat(tokenB).isPositive();
  }

  @Test
  void aRefusalNamesItsBlockReasonAndTheWorkersThatCauseIt() {
    LifecycleFixture f = new LifecycleFixture();
    assertThat(block(f).reason()).isEqualTo(SnapshotBlock.Reason.NO_WORKERS);
    f.join("a", List.of("b"), List.of());
    assertThat(block(f).reason()).isEqualTo(SnapshotBlock.Reason.TOPOLOGY_OPEN);

    LifecycleFixture g = new LifecycleFixture().ring();
    g.membership.lost("b", g.membership.token("b"));
    assertThat(block(g))
        .satisfies(
            b -> {
              assertThat(b.reason()).isEqualTo(SnapshotBlock.Reason.WORKERS_LOST);
              assertThat(b.workers()).containsExactly("b");
            });
    g.lifecycle.pause(SnapshotBlock.Reason.ROLLBACK_FAILED, "the rollback failed");
    assertThat(block(g).reason()).isEqualTo(SnapshotBlock.Reason.ROLLBACK_FAILED);

    LifecycleFixture h = new LifecycleFixture().ring();
    h.membership.setState("a", WorkerState.WORKER_STATE_HALTED);
    assertThat(block(h))
        .satisfies(
            b -> {
              assertThat(b.reason()).isEqualTo(SnapshotBlock.Reason.WORKERS_NOT_RUNNING);
              assertThat(b.workers()).containsExactly("a");
            });
  }

  @Test
  void aWorkerThatAsksForASnapshotInitiatesItselfAndTheOtherSourcesAreStarted() {
    LifecycleFixture f = new LifecycleFixture();
    // two separate lines: x -> y and p -> q
    f.join("x", List.of("y"), List.of());
    f.join("y", List.of(), List.of("x"));
    f.join("p", List.of("q"), List.of());
    f.join("q", List.of(), List.of("p"));
    TriggerResult r = f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_WORKER, "y").join();
    long id = ((TriggerResult.Started) r).snapshotId();
    assertThat(f.store.manifest(id).orElseThrow().getInitiatorsList())
        .containsExactly("p", "x", "y");
    assertThat(f.commands).containsExactlyInAnyOrder("start p " + id, "start x " + id);
  }

  @Test
  void consecutiveFailuresBeyondTheTolerableNumberAreReportedOnce() {
    LifecycleFixture f = new LifecycleFixture(Duration.ofSeconds(1), Duration.ZERO, 1, 2).ring();
    for (int i = 0; i < 4; i++) {
      f.start();
      f.scheduler.advance(Duration.ofSeconds(1));
    }
    assertThat(f.toleranceExceeded).containsExactly(3L);
    assertThat(f.lifecycle.consecutiveFailures()).isEqualTo(4);

    long ok = f.start();
    LifecycleFixture.quietRing(ok).forEach(f::deliver);
    assertThat(f.lifecycle.consecutiveFailures()).isZero();
  }

  @Test
  void aCommitTheStoreRefusesAbortsTheSnapshot() {
    LifecycleFixture f = new LifecycleFixture().ring();
    f.store.failCommits = true;
    long id = f.start();
    LifecycleFixture.quietRing(id).forEach(f::deliver);
    assertThat(f.outcomes).containsExactly(id + " ABORTED STORE_ERROR");
  }

  private static SnapshotBlock block(LifecycleFixture f) {
    TriggerResult r = f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC, null).join();
    assertThat(r).isInstanceOf(TriggerResult.Refused.class);
    return java.util.Objects.requireNonNull(((TriggerResult.Refused) r).block(), "block");
  }

  private static String refusal(LifecycleFixture f) {
    TriggerResult r = f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC, null).join();
    assertThat(r).isInstanceOf(TriggerResult.Refused.class);
    return ((TriggerResult.Refused) r).message();
  }
}
