package io.cutpoint.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.testing.DirectStoreEffects;
import io.cutpoint.server.testing.RecordingStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lifecycle decides store writes and learns their results as events: a snapshot completes on
 * its committed event, never before; a failed commit ends it ABORTED; a verified cut being
 * committed outlives a timeout and a lost worker; and its methods refuse to run off the loop.
 */
class LifecycleEffectsTest {

  /** A ring whose effects wait until the test performs them. */
  private static LifecycleFixture held() {
    LifecycleFixture f = new LifecycleFixture().ring();
    f.effects.hold = true;
    return f;
  }

  /** Starts a snapshot through a held store, and performs what it handed the store. */
  private static long start(LifecycleFixture f) {
    CompletableFuture<TriggerResult> r =
        f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null);
    f.effects.perform();
    return ((TriggerResult.Started) r.join()).snapshotId();
  }

  /** A held ring whose store has reserved ids ahead: one snapshot started and aborted. */
  private static LifecycleFixture warmed() {
    LifecycleFixture f = held();
    long first = start(f);
    assertThat(f.lifecycle.abort(first, FailureReason.OPERATOR, "warming up")).isPresent();
    f.effects.perform();
    f.commands.clear();
    f.outcomes.clear();
    return f;
  }

  @Test
  void theFirstTriggerWaitsForTheStoreToReserveIdsAndTheNextOnesDoNot() {
    LifecycleFixture f = held();
    CompletableFuture<TriggerResult> r =
        f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null);
    assertThat(r).isNotDone();
    assertThat(f.commands).isEmpty();
    assertThat(f.effects.decided()).containsExactly("ids " + SnapshotLifecycle.ID_BLOCK);

    f.effects.perform();

    long id = ((TriggerResult.Started) r.join()).snapshotId();
    assertThat(f.effects.decided())
        .containsExactly("ids " + SnapshotLifecycle.ID_BLOCK, "pending " + id);
    assertThat(f.effects.reserved()).hasSize(SnapshotLifecycle.ID_BLOCK).startsWith(id);
  }

  @Test
  void aTriggerSendsItsStartCommandsBeforeTheStoreHasWrittenThePendingManifest() {
    LifecycleFixture f = warmed();

    CompletableFuture<TriggerResult> r =
        f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null);

    assertThat(f.lifecycle.pendingIds()).hasSize(1);
    long id = f.lifecycle.pendingIds().get(0);
    assertThat(r).isNotDone(); // the caller is answered once the store has the snapshot
    assertThat(f.commands)
        .isNotEmpty()
        .allMatch(c -> c.startsWith("start ") && c.endsWith(" " + id));
    assertThat(f.effects.queued()).isEqualTo(1);
    assertThat(f.store.calls()).doesNotContain("pending " + id);
    assertThat(f.lifecycle.pendingIds()).containsExactly(id);

    f.effects.perform();

    assertThat(f.store.calls()).contains("pending " + id);
    assertThat(((TriggerResult.Started) r.join()).snapshotId()).isEqualTo(id);
    LifecycleFixture.quietRing(id).forEach(f::deliver);
    f.effects.perform();
    assertThat(f.outcomes).containsExactly(id + " COMPLETE");
  }

  @Test
  void aPendingManifestTheStoreCannotWriteEndsTheSnapshotAbortedAndItsWorkersAreTold() {
    LifecycleFixture f = warmed();
    f.store.failPending = true;
    CompletableFuture<TriggerResult> r =
        f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null);
    assertThat(f.commands).anyMatch(c -> c.startsWith("start "));

    f.effects.perform();

    TriggerResult.Started s = (TriggerResult.Started) r.join();
    long id = s.snapshotId();

    assertThat(f.outcomes).containsExactly(id + " ABORTED STORE_ERROR");
    assertThat(f.commands).contains("abort a " + id, "abort b " + id, "abort c " + id);
    SnapshotManifest m = s.outcome().join();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(m.getReason()).startsWith("the pending manifest could not be written");
    assertThat(f.lifecycle.pendingIds()).isEmpty();
  }

  @Test
  void theLastPieceHandsTheCommitToTheStoreAndTheSnapshotCompletesOnlyOnItsCommittedEvent() {
    LifecycleFixture f = held();
    long id = start(f);
    LifecycleFixture.quietRing(id).forEach(f::deliver);

    assertThat(f.effects.decided())
        .containsExactly("ids " + SnapshotLifecycle.ID_BLOCK, "pending " + id, "commit " + id);
    assertThat(f.store.calls()).doesNotContain("commit " + id);
    assertThat(f.outcomes).isEmpty();
    assertThat(f.lifecycle.pendingIds()).containsExactly(id);
    CompletableFuture<?> settled = f.lifecycle.settled(id);
    assertThat(settled).isNotDone();

    f.effects.perform();

    assertThat(f.store.calls()).contains("commit " + id);
    assertThat(f.outcomes).containsExactly(id + " COMPLETE");
    assertThat(f.lifecycle.pendingIds()).isEmpty();
    assertThat(settled).isDone();
  }

  @Test
  void aCommitTheStoreFailsEndsTheSnapshotAbortedOnItsEvent() {
    LifecycleFixture f = held();
    long id = start(f);
    f.store.failCommits = true;
    LifecycleFixture.quietRing(id).forEach(f::deliver);
    assertThat(f.outcomes).isEmpty();

    f.effects.perform();

    assertThat(f.outcomes).containsExactly(id + " ABORTED STORE_ERROR");
    SnapshotManifest m = f.store.manifest(id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(m.getReason()).startsWith("commit failed");
    assertThat(f.commands).contains("abort a " + id, "abort b " + id, "abort c " + id);
  }

  @Test
  void aVerifiedCutBeingCommittedOutlivesItsTimeoutALostWorkerAndAnAbortOfAll() {
    LifecycleFixture f = held();
    long id = start(f);
    LifecycleFixture.quietRing(id).forEach(f::deliver);

    f.scheduler.advance(Duration.ofMinutes(1));
    f.lifecycle.workerLost("b");
    f.lifecycle.abortAll(FailureReason.OPERATOR, "everything");
    assertThat(f.lifecycle.abort(id, FailureReason.OPERATOR, "this one")).isEmpty();
    assertThat(f.outcomes).isEmpty();

    f.effects.perform();
    assertThat(f.outcomes).containsExactly(id + " COMPLETE");
    assertThat(f.store.manifest(id).orElseThrow().getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
  }

  @Test
  void aSnapshotWaitingForItsIdWhenEverySnapshotIsAbortedEndsAbortedUntold() {
    LifecycleFixture f = held();
    CompletableFuture<TriggerResult> r =
        f.lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null);
    f.lifecycle.abortAll(FailureReason.COORDINATOR, "a rollback begins");

    f.effects.perform(); // the ids are reserved; the manifest is written, then its end

    TriggerResult.Started s = (TriggerResult.Started) r.join();
    assertThat(s.outcome().join().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(f.outcomes).containsExactly(s.snapshotId() + " ABORTED COORDINATOR");
    assertThat(f.commands).noneMatch(c -> c.startsWith("start"));
  }

  @Test
  void readersSeeTheAppliedEventBeforeAnyReplyOrOutcomeCompletes() {
    LifecycleFixture f = held();
    CompletableFuture<List<Long>> atStart =
        f.lifecycle
            .trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null)
            .thenApply(r -> f.lifecycle.pendingIds());
    f.effects.perform();
    long id = f.lifecycle.pendingIds().get(0);
    assertThat(atStart.join()).containsExactly(id);

    LifecycleFixture.quietRing(id).forEach(f::deliver);
    CompletableFuture<List<Long>> atEnd =
        f.lifecycle.settled(id).thenApply(x -> f.lifecycle.pendingIds());
    f.effects.perform();
    assertThat(atEnd.join()).isEmpty();
  }

  @Test
  void itsEventMethodsRefuseToRunOffTheLoop() throws Exception {
    RecordingStore store = new RecordingStore();
    try (ExecutorScheduler loop = new ExecutorScheduler("test-loop")) {
      Membership membership = new Membership();
      SnapshotLifecycle lifecycle =
          new SnapshotLifecycle(
              new SnapshotLifecycle.Settings(Duration.ofSeconds(10), Duration.ZERO, 1, 3),
              Clock.systemUTC(),
              loop,
              new DirectStoreEffects(store),
              membership::view,
              new WorkerCommands() {
                @Override
                public void startSnapshot(String workerId, long snapshotId, long epoch) {}

                @Override
                public void abortSnapshot(String workerId, long snapshotId, String reason) {}
              },
              new SnapshotListener() {});

      assertThatThrownBy(() -> lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(
              "SnapshotLifecycle runs on the coordinator loop, not on thread "
                  + Thread.currentThread().getName());
      assertThatThrownBy(() -> lifecycle.abortAll(FailureReason.OPERATOR, "x"))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> lifecycle.acknowledge(LifecycleFixture.quietRing(1).get(0)))
          .isInstanceOf(IllegalStateException.class);

      // on the loop the same call runs (and is refused for the empty cluster, as it should be)
      TriggerResult r =
          loop.call(() -> lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null))
              .get(10, TimeUnit.SECONDS)
              .get(10, TimeUnit.SECONDS);
      assertThat(r)
          .isInstanceOfSatisfying(
              TriggerResult.Refused.class, x -> assertThat(x.message()).contains("no workers"));
      assertThat(lifecycle.pendingIds()).isEmpty(); // readers may read anywhere
    }
  }
}
