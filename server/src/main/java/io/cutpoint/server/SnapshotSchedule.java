package io.cutpoint.server;

import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.server.events.EventHub;
import io.cutpoint.server.lifecycle.BlockedSnapshots;
import io.cutpoint.server.lifecycle.SnapshotBlock;
import io.cutpoint.server.lifecycle.SnapshotLifecycle;
import io.cutpoint.server.lifecycle.TriggerResult;
import io.cutpoint.server.metrics.CoordinatorMetrics;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic snapshots: whether an operator paused them, and one attempt per period. An attempt
 * that cannot start because of the state of the cluster is reported once per change of reason: one
 * WARN line, one {@code SNAPSHOTS_BLOCKED} event and the {@code cutpoint.snapshots.blocked} gauge;
 * when attempts start again, one INFO line and one {@code SNAPSHOTS_UNBLOCKED} event. Confined to
 * the coordinator loop, except the readers {@link #paused()} and {@link #blocked()}, which read
 * what the last event published.
 *
 * <p>A coordinator that starts over a store with complete snapshots (a restart, or a new leader of
 * a highly available cluster) takes its first periodic snapshot as soon as every worker of the
 * newest one has joined again with its state, instead of an interval after the start: the
 * checkpoint that the outage aged is renewed at once. A worker of it that joins with a fresh state
 * cancels that: its state is for a rollback to decide, and the next period's attempt goes ahead as
 * usual.
 */
public final class SnapshotSchedule {

  private static final Logger log = LoggerFactory.getLogger(SnapshotSchedule.class);

  private final Duration interval;
  private final io.cutpoint.server.lifecycle.Scheduler loop;
  private final SnapshotLifecycle lifecycle;
  private final Supplier<Optional<String>> storeUnavailable;
  private final EventHub events;
  private final CoordinatorMetrics metrics;
  private final BlockedSnapshots blocked = new BlockedSnapshots();
  private volatile boolean paused;
  private Set<String> awaited; // on the loop: workers of the newest snapshot not back yet, or null

  SnapshotSchedule(
      Duration interval,
      io.cutpoint.server.lifecycle.Scheduler loop,
      SnapshotLifecycle lifecycle,
      Supplier<Optional<String>> storeUnavailable,
      EventHub events,
      CoordinatorMetrics metrics,
      Set<String> awaited) {
    this.interval = interval;
    this.awaited = awaited.isEmpty() || interval.isZero() ? null : new HashSet<>(awaited);
    this.loop = loop;
    this.lifecycle = lifecycle;
    this.storeUnavailable = storeUnavailable;
    this.events = events;
    this.metrics = metrics;
  }

  /** Time between periodic snapshots; zero = only on demand. */
  public Duration interval() {
    return interval;
  }

  public boolean paused() {
    return paused;
  }

  /** Pauses or resumes the periodic snapshots; true when that changed anything. On the loop. */
  public boolean setPaused(boolean pause, String by) {
    loop.checkInLoop("SnapshotSchedule");
    if (paused == pause) {
      return false;
    }
    paused = pause;
    String what =
        pause
            ? "periodic snapshots paused (" + by + ")"
            : "periodic snapshots resumed (" + by + ")";
    log.info(what);
    events.publish(EventType.EVENT_TYPE_SCHEDULE_CHANGED, 0, null, what, 0);
    return true;
  }

  /** Why the last periodic attempt could not start, if it could not. */
  public Optional<SnapshotBlock> blocked() {
    return blocked.current();
  }

  /**
   * One periodic attempt (the coordinator's timer calls it once per interval). Posted to the loop
   * when called elsewhere; completes once the attempt started a snapshot or was refused, and the
   * block (if any) is reported.
   */
  public CompletableFuture<Void> attempt() {
    return loop.callAsync(this::attemptOnLoop);
  }

  /**
   * A worker joined ({@code fresh}: with its initial state); the first attempt goes now if it was
   * the last of the newest snapshot's workers to come back. On the loop.
   */
  public void workerJoined(String workerId, boolean fresh) {
    loop.checkInLoop("SnapshotSchedule");
    if (awaited == null || !awaited.contains(workerId)) {
      return;
    }
    if (fresh) {
      awaited = null;
      return;
    }
    awaited.remove(workerId);
    if (awaited.isEmpty()) {
      awaited = null;
      log.info("every worker of the newest snapshot is back: snapshotting now");
      var unused = attemptOnLoop(); // it reports its own outcome
    }
  }

  private CompletableFuture<Void> attemptOnLoop() {
    Optional<String> store = storeUnavailable.get();
    if (paused) {
      observe(
          SnapshotBlock.of(
              SnapshotBlock.Reason.PAUSED, "an operator paused the periodic snapshots"));
      return CompletableFuture.completedFuture(null);
    }
    if (store.isPresent()) {
      observe(
          SnapshotBlock.of(
              SnapshotBlock.Reason.STORE_UNAVAILABLE, "the store cannot write: " + store.get()));
      return CompletableFuture.completedFuture(null);
    }
    return lifecycle
        .trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC, null)
        .thenAccept(
            r -> {
              SnapshotBlock block =
                  r instanceof TriggerResult.Refused refused ? refused.block() : null;
              if (r instanceof TriggerResult.Refused refused && block == null) {
                log.debug("periodic snapshot skipped: {}", refused.message());
              }
              observe(block);
            });
  }

  private void observe(SnapshotBlock block) {
    blocked.observe(block).ifPresent(this::report);
  }

  private void report(BlockedSnapshots.Change change) {
    SnapshotBlock now = change.now();
    metrics.snapshotsBlocked(now == null ? null : now.reason());
    if (now == null) {
      log.info("periodic snapshots start again (they were blocked: {})", change.before().message());
      events.publish(
          EventType.EVENT_TYPE_SNAPSHOTS_UNBLOCKED, 0, null, "periodic snapshots start again", 0);
      return;
    }
    log.warn("periodic snapshots cannot start ({}): {}", now.reason().tag(), now.message());
    events.publish(
        EventType.EVENT_TYPE_SNAPSHOTS_BLOCKED,
        0,
        null,
        "periodic snapshots cannot start (" + now.reason().tag() + "): " + now.message(),
        0);
  }
}
