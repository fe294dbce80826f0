package io.cutpoint.server.rollback;

import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.RollbackService;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.Scheduler;
import io.cutpoint.server.lifecycle.SnapshotBlock;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.storage.NoSuchSnapshotException;
import io.cutpoint.storage.NotPendingException;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.SnapshotStore.RollbackIntent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's rollback around the pure {@link RollbackRun}: the states, the automatic policy,
 * and the preparation of a target. The target is checked ({@link RollbackTargets}) and the new
 * epoch persisted on the store executor, before anything else; the result comes back to the loop,
 * which pauses and aborts snapshots and starts the run; {@link RollbackActions} carries out what
 * the run decides. The automatic policy starts a rollback when a worker is lost, or joins with a
 * fresh state although a complete snapshot holds its state.
 *
 * <p>States: IDLE; PREPARING (a target is being chosen and verified on the store executor); RUNNING
 * (a {@link RollbackRun}); HALTED (a rollback failed: the workers stay halted, joiners are welcomed
 * halted, snapshots are refused, until a new rollback succeeds or an operator cancels it). One
 * rollback at a time. The workers are held (a joiner is welcomed halted) while RUNNING or HALTED,
 * and while PREPARING only when they were held before (a retry, or a rollback resumed after a
 * restart): a preparation from IDLE leaves them running, as their peers are, so that a target
 * refused after its checks leaves nobody halted; the run halts every live worker when it begins.
 * Confined to the coordinator loop, no lock: every event method checks it runs there; the readers
 * read a {@link Published} view set after each event.
 */
public final class RollbackCoordinator implements RollbackService {

  private static final Logger log = LoggerFactory.getLogger(RollbackCoordinator.class);
  private static final String OWNER = "RollbackCoordinator";

  /** Choices of an automatic target, at most, when each one is deleted before it is persisted. */
  private static final int CHOICES = 3;

  /** The factory to hand to {@code CoordinatorServer.start}. */
  public static RollbackService.Factory factory() {
    return RollbackCoordinator::new;
  }

  private enum State {
    IDLE,
    PREPARING,
    RUNNING,
    HALTED
  }

  /** The rollback being run, with who asked and who waits. */
  /** A run, and the workers that restored it from their own copy (the loop's). */
  private record Active(
      RollbackRun run,
      String cause,
      Instant requestedAt,
      CompletableFuture<RollbackRun> outcome,
      Set<String> restoredLocally) {}

  /** A target checked and its epoch persisted, on the store executor. */
  private record Prepared(SnapshotManifest target, long epoch, RollbackTargets.Choice choice) {}

  /** What readers see, as of the last event. */
  private record Published(
      State state,
      boolean holds,
      long preparingTarget,
      long lastTarget,
      long epoch,
      RollbackStatus status) {}

  private final Parts parts;
  private final Scheduler loop;
  private final RollbackActions actions;
  private final RollbackPolicy policy;
  private final Duration deadline;
  private State state = State.IDLE;
  private State stateBeforePreparing = State.IDLE;
  private long preparingTarget;
  private Active active;
  private long lastTarget;

  /** The store's epoch as this coordinator last set or read it. */
  private long epoch;

  /**
   * Why the automatic policy wants a rollback that a preparation under way kept it from starting (a
   * worker lost, or joined fresh, meanwhile); null if none. If the preparation starts a run, the
   * run covers it; if not, {@link #release} starts the automatic rollback.
   */
  private String dueAfterPreparation;

  private Scheduler.Cancellable deadlineTimer;
  private volatile boolean closed;
  private volatile Published published =
      new Published(State.IDLE, false, 0, 0, 0, RollbackStatus.NONE);

  /** Reads the store (when the coordinator starts, before the loop runs events). */
  public RollbackCoordinator(Parts parts) {
    this.parts = parts;
    this.loop = parts.loop();
    this.actions = new RollbackActions(parts);
    this.policy = parts.config().rollbackPolicy();
    this.deadline = parts.config().rollbackDeadline();
    this.epoch = parts.store().epoch();
    if (parts.store().rollbackInProgress().isPresent()) {
      state = State.PREPARING; // joiners are welcomed halted until start() resumes it
      stateBeforePreparing = State.HALTED;
    }
    publish();
  }

  // ---- RollbackService --------------------------------------------------------------------------

  @Override
  public void start() {
    loop.checkInLoop(OWNER);
    Optional<RollbackIntent> intent = parts.store().rollbackInProgress();
    if (intent.isEmpty()) {
      return;
    }
    RollbackIntent i = intent.get();
    if (i.snapshotId() == RollbackIntent.UNKNOWN_TARGET) {
      log.warn(
          "the store's record of a rollback in progress was damaged; rolling back to the newest"
              + " complete snapshot that verifies");
      prepareAutomatic(
          State.HALTED,
          0,
          "the record of a rollback in progress was damaged (it may be half done)");
      return;
    }
    log.warn(
        "a rollback to snapshot {} (epoch {}) was in progress when the coordinator stopped; "
            + "finishing it in a new epoch",
        i.snapshotId(),
        i.epoch());
    lastTarget = i.snapshotId(); // what status and cancel name if it cannot start
    prepareAutomatic(
        State.HALTED,
        i.snapshotId(),
        "resumed after a coordinator restart (was epoch " + i.epoch() + ")");
  }

  @Override
  public CompletableFuture<RollbackResponse> rollback(RollbackRequest request) {
    loop.checkInLoop(OWNER);
    Instant requestedAt = parts.clock().instant();
    Optional<RollbackRefused> busy = busy();
    if (busy.isPresent()) {
      return CompletableFuture.failedFuture(busy.get());
    }
    preparing(state, request.getSnapshotId());
    CompletableFuture<RollbackResponse> response = new CompletableFuture<>();
    Membership.View cluster = parts.membership().view();
    long id = request.getSnapshotId();
    parts
        .storeIo()
        .submit(
            store -> persist(store, new RollbackTargets(store).operatorTarget(id, cluster), null),
            (prepared, error) -> {
              Active a = error == null ? begin(prepared, cause(request), requestedAt) : null;
              if (a == null) {
                release();
                response.completeExceptionally(refusal(id, error));
                return;
              }
              answer(request, a, requestedAt, response);
            });
    return response;
  }

  @Override
  public boolean inProgress() {
    State s = published.state();
    return s == State.PREPARING || s == State.RUNNING;
  }

  @Override
  public boolean holdsWorkers() {
    return published.holds();
  }

  @Override
  public long epoch() {
    return published.epoch();
  }

  @Override
  public RollbackStatus status() {
    return published.status();
  }

  @Override
  public boolean uses(long snapshotId) {
    Published p = published;
    return (p.state() == State.PREPARING && p.preparingTarget() == snapshotId)
        || (p.state() != State.IDLE && p.lastTarget() == snapshotId);
  }

  @Override
  public Optional<String> needs(String workerId) {
    loop.checkInLoop(OWNER);
    if (state == State.PREPARING) {
      return Optional.of("a rollback is being prepared");
    }
    if (state == State.HALTED && active == null) {
      return Optional.of(
          "the rollback to snapshot "
              + lastTarget
              + " that resumed after a restart could not start; retry or cancel it first");
    }
    if ((state == State.RUNNING || state == State.HALTED)
        && active != null
        && active.run().workerIds().contains(workerId)) {
      return Optional.of(
          "the "
              + (state == State.RUNNING ? "running" : "failed")
              + " rollback to snapshot "
              + active.run().snapshotId()
              + " restores it; "
              + (state == State.RUNNING ? "wait for it or cancel it" : "retry or cancel it")
              + " first");
    }
    return Optional.empty();
  }

  @Override
  public RollbackStatus.Cancel cancel() {
    loop.checkInLoop(OWNER);
    if (closed) {
      return new RollbackStatus.NotCancelled(
          RollbackStatus.Phase.NONE, "the coordinator is stopping");
    }
    if (state == State.IDLE || state == State.PREPARING) {
      return new RollbackStatus.NotCancelled(
          state == State.IDLE ? RollbackStatus.Phase.NONE : RollbackStatus.Phase.PREPARING,
          state == State.IDLE
              ? "no rollback runs or failed"
              : "a rollback is being prepared; cancel it once it runs");
    }
    RollbackRun run = active == null ? null : active.run();
    boolean wasRunning = state == State.RUNNING;
    long snapshotId = run == null ? lastTarget : run.snapshotId();
    long runEpoch = run == null ? epoch : run.epoch();
    if (run != null) {
      run.fail("cancelled by an operator");
    }
    end(State.IDLE);
    List<String> resumed = actions.resumeLive(runEpoch, w -> false);
    // a worker whose download is under way holds the resume back until its restore ends
    List<String> afterRestore =
        resumed.stream().filter(w -> step(run, w) == RollbackRun.WorkerStep.RESTORING).toList();
    List<String> unrestored =
        resumed.stream()
            .filter(w -> step(run, w) != RollbackRun.WorkerStep.RESTORED)
            .filter(w -> step(run, w) != RollbackRun.WorkerStep.RESTORING)
            .toList();
    actions.recordEnd(runEpoch, snapshotId);
    parts.lifecycle().resume();
    if (wasRunning) {
      parts
          .metrics()
          .rollback(false, Duration.between(active.requestedAt(), parts.clock().instant()));
    }
    actions.cancelled(snapshotId, runEpoch, unrestored, afterRestore);
    publish();
    if (active != null) {
      active.outcome().complete(run);
    }
    return new RollbackStatus.Cancelled(snapshotId, runEpoch, unrestored, afterRestore);
  }

  /** Where {@code workerId} is in {@code run}; null without a run, or for a worker outside it. */
  private static RollbackRun.WorkerStep step(RollbackRun run, String workerId) {
    return run == null ? null : run.workers().get(workerId);
  }

  @Override
  public void onHalted(String workerId, long answeredEpoch) {
    loop.checkInLoop(OWNER);
    if (state != State.RUNNING) {
      return;
    }
    RollbackRun run = active.run();
    RollbackRun.WorkerStep before = run.workers().get(workerId);
    List<RollbackRun.Command> commands = run.halted(workerId, answeredEpoch);
    if (before != run.workers().get(workerId)) { // a first answer, not a stale or repeated one
      actions.workerState(workerId, WorkerState.WORKER_STATE_HALTED);
    }
    actions.carryOut(run, commands);
    publish();
  }

  @Override
  public void onRestored(
      String workerId, long answeredEpoch, long snapshotId, boolean fromLocalCopy) {
    loop.checkInLoop(OWNER);
    if (state != State.RUNNING) {
      return;
    }
    RollbackRun run = active.run();
    List<RollbackRun.Command> commands = run.restored(workerId, answeredEpoch, snapshotId);
    if (run.workers().get(workerId) == RollbackRun.WorkerStep.RESTORED) {
      actions.workerState(workerId, WorkerState.WORKER_STATE_RESTORED);
      if (fromLocalCopy) {
        active.restoredLocally().add(workerId);
      } else {
        active.restoredLocally().remove(workerId);
      }
    }
    actions.carryOut(run, commands);
    if (run.phase() == RollbackRun.Phase.COMPLETED) {
      completed();
      return;
    }
    publish();
  }

  @Override
  public void onRestoreFailed(String workerId, long answeredEpoch, long snapshotId, String reason) {
    loop.checkInLoop(OWNER);
    if (state == State.RUNNING
        && active.run().restoreFailed(workerId, answeredEpoch, snapshotId, reason)) {
      failed();
    }
  }

  @Override
  public void onWorkerJoined(String workerId) {
    loop.checkInLoop(OWNER);
    if (state == State.RUNNING) {
      actions.carryOut(active.run(), active.run().joined(workerId));
      publish();
      outsideTheRun(workerId);
    }
    if (state == State.HALTED
        && policy == RollbackPolicy.LATEST_COMPLETE
        && parts.membership().view().allLive()) {
      prepareAutomatic(
          State.HALTED, lastTarget, "retry after a failed rollback: every worker is back");
    }
  }

  @Override
  public void onWorkerLost(String workerId) {
    loop.checkInLoop(OWNER);
    if (closed) {
      return;
    }
    if (state == State.RUNNING) {
      active.run().lost(workerId);
      publish();
    } else if (policy == RollbackPolicy.LATEST_COMPLETE) {
      automaticWhenIdle("worker " + workerId + " was lost");
    }
  }

  /**
   * A worker whose state is its initial one joined. When a complete snapshot holds its state, what
   * it ran before is lost: with LATEST_COMPLETE it is treated like a lost worker (unless a rollback
   * is already under way, which restores it anyway); with NONE it is only reported. This is what
   * notices a worker that restarted while no coordinator ran, and recovers a whole cluster that
   * restarts fresh (cold restart). The store is searched on the store executor.
   */
  @Override
  public void onFreshWorkerJoined(String workerId) {
    loop.checkInLoop(OWNER);
    parts
        .storeIo()
        .submit(
            store -> new RollbackTargets(store).newestHolding(workerId),
            (holder, error) -> {
              if (error != null) {
                log.error(
                    "could not search the snapshots for the state of fresh worker {}",
                    workerId,
                    error);
                return;
              }
              if (holder.isEmpty()) {
                return; // a new worker, or no complete snapshot yet: its initial state is all there
                // is
              }
              if (policy != RollbackPolicy.LATEST_COMPLETE) {
                actions.freshNotRolledBack(workerId, holder.get(), policy);
                return;
              }
              if (!closed) {
                automaticWhenIdle("worker " + workerId + " joined with a fresh state");
              }
            });
  }

  /**
   * The automatic policy's rollback: at once when no rollback is under way, once the preparation
   * ends when one is being prepared (an operator's target may yet be refused). A run, or a failed
   * one (HALTED), restores or holds every worker anyway.
   */
  private void automaticWhenIdle(String cause) {
    if (state == State.IDLE) {
      prepareAutomatic(State.IDLE, 0, cause);
    } else if (state == State.PREPARING && dueAfterPreparation == null) {
      dueAfterPreparation = cause;
    }
  }

  /** Any thread: later events do nothing; a caller waiting for the outcome is told. */
  @Override
  public void close() {
    closed = true;
    loop.execute(
        () -> {
          if (deadlineTimer != null) {
            deadlineTimer.cancel();
          }
          if (active != null && !active.outcome().isDone()) {
            active
                .outcome()
                .completeExceptionally(
                    new RollbackRefused(
                        RollbackRefused.Kind.STOPPING,
                        "the coordinator stopped; it resumes the rollback when it starts again"));
          }
        });
  }

  // ---- steps ----------------------------------------------------------------------------------

  private Optional<RollbackRefused> busy() {
    if (closed) {
      return Optional.of(
          new RollbackRefused(RollbackRefused.Kind.STOPPING, "the coordinator is stopping"));
    }
    if (state == State.PREPARING) {
      return Optional.of(
          new RollbackRefused(
              RollbackRefused.Kind.NOT_NOW,
              "a rollback is being prepared; one rollback at a time"));
    }
    if (state == State.RUNNING) {
      RollbackRun run = active.run();
      return Optional.of(
          new RollbackRefused(
              RollbackRefused.Kind.NOT_NOW,
              "a rollback to snapshot "
                  + run.snapshotId()
                  + " (epoch "
                  + run.epoch()
                  + ") is in progress, waiting for "
                  + run.waitingFor()
                  + "; one rollback at a time"));
    }
    return Optional.empty();
  }

  private void preparing(State before, long target) {
    stateBeforePreparing = before;
    state = State.PREPARING;
    preparingTarget = target;
    publish();
  }

  /**
   * On the store executor: persists the next epoch with {@code target} (first: a coordinator killed
   * from here on resumes the rollback).
   */
  private static Prepared persist(
      SnapshotStore store, SnapshotManifest target, RollbackTargets.Choice choice) {
    long next = store.epoch() + 1;
    long id = target.getSnapshotId();
    try {
      store.beginRollback(next, id);
    } catch (NoSuchSnapshotException e) {
      // deleted (an operator, retention) after its checks, before the store could keep it
      throw new RollbackRefused(
          RollbackRefused.Kind.NO_SUCH_SNAPSHOT,
          "snapshot " + id + " was deleted while the rollback to it was prepared");
    } catch (NotPendingException e) {
      throw new RollbackRefused(RollbackRefused.Kind.NOT_NOW, e.getMessage());
    }
    return new Prepared(target, next, choice);
  }

  /**
   * Chooses the newest verified target on the store executor (reporting fallbacks), then begins.
   */
  private void prepareAutomatic(State before, long preferred, String cause) {
    preparing(before, preferred);
    Instant requestedAt = parts.clock().instant();
    Membership.View cluster = parts.membership().view();
    parts
        .storeIo()
        .submit(
            store -> chooseAndPersist(store, cluster, preferred),
            (prepared, error) -> {
              if (error != null) {
                actions.notStarted(cause, null, error, Duration.ZERO);
                release();
                return;
              }
              actions.fellBack(cause, prepared.choice());
              if (prepared.target() == null) {
                actions.notStarted(
                    cause,
                    prepared.choice().reasonIfNone(),
                    null,
                    Duration.between(requestedAt, parts.clock().instant()));
                release();
                return;
              }
              if (begin(prepared, "automatic: " + cause, requestedAt) == null) {
                release();
              }
            });
  }

  /**
   * The automatic target, with the rollback's epoch persisted. A target deleted after its checks
   * (retention runs on another thread, an operator may delete) is no reason to give up: the next
   * choice leaves it out. The store executor.
   */
  private static Prepared chooseAndPersist(
      SnapshotStore store, Membership.View cluster, long preferred) {
    for (int attempt = 1; ; attempt++) {
      RollbackTargets.Choice choice =
          new RollbackTargets(store).automaticTarget(cluster, preferred);
      if (choice.target().isEmpty()) {
        return new Prepared(null, 0, choice);
      }
      try {
        return persist(store, choice.target().get(), choice);
      } catch (RollbackRefused e) {
        if (e.kind() != RollbackRefused.Kind.NO_SUCH_SNAPSHOT || attempt == CHOICES) {
          throw e;
        }
        log.info("{}; choosing the target again", e.getMessage());
      }
    }
  }

  /**
   * The epoch is persisted: pauses snapshots, aborts pending ones and halts every worker. Null when
   * the coordinator is stopping (a restart resumes the rollback).
   */
  private Active begin(Prepared prepared, String cause, Instant requestedAt) {
    loop.checkInLoop(OWNER);
    epoch = prepared.epoch();
    if (closed) {
      return null;
    }
    long id = prepared.target().getSnapshotId();
    Set<String> workers = new TreeSet<>();
    for (WorkerDecl d : prepared.target().getTopology().getWorkersList()) {
      workers.add(d.getWorkerId());
    }
    parts
        .lifecycle()
        .pause(
            SnapshotBlock.Reason.ROLLBACK_IN_PROGRESS,
            "a rollback to snapshot " + id + " is in progress");
    parts
        .lifecycle()
        .abortAll(
            FailureReason.COORDINATOR, "rollback to snapshot " + id + " (epoch " + epoch + ")");
    RollbackRun run = new RollbackRun(epoch, id, workers, parts.clock(), deadline);
    active = new Active(run, cause, requestedAt, new CompletableFuture<>(), new TreeSet<>());
    state = State.RUNNING;
    dueAfterPreparation = null; // the run halts and restores every worker
    lastTarget = id;
    Set<String> live = new TreeSet<>();
    parts
        .membership()
        .view()
        .members()
        .forEach(
            (w, m) -> {
              if (m.live()) {
                live.add(w);
              }
            });
    actions.started(
        run, cause, RollbackTargets.heldLocally(id, parts.membership().view()).keySet());
    actions.carryOut(run, run.begin(live));
    scheduleDeadline(run, deadline);
    // Workers without a piece in the snapshot enter the new epoch too, with the state they hold
    live.removeAll(workers);
    live.forEach(w -> actions.halt(w, epoch));
    publish();
    live.forEach(this::outsideTheRun);
    return active;
  }

  /** Answers an operator's request: at once, or when the run ends (or the wait does). */
  private void answer(
      RollbackRequest request,
      Active a,
      Instant requestedAt,
      CompletableFuture<RollbackResponse> response) {
    if (!request.getWait()) {
      response.complete(response(a.run(), false, 0));
      return;
    }
    // Without a wait timeout, wait for the outcome: the run ends by its deadline anyway.
    CompletableFuture<RollbackRun> outcome =
        request.getWaitTimeoutMs() == 0
            ? a.outcome().copy()
            : a.outcome()
                .copy()
                .orTimeout(
                    Integer.toUnsignedLong(request.getWaitTimeoutMs()), // a uint32
                    TimeUnit.MILLISECONDS);
    var unused =
        outcome.whenComplete(
            (run, error) -> {
              if (error == null && run.phase() == RollbackRun.Phase.COMPLETED) {
                long micros =
                    Math.max(
                        0, Duration.between(requestedAt, parts.clock().instant()).toNanos() / 1000);
                response.complete(response(run, true, micros));
              } else if (error == null) {
                response.completeExceptionally(
                    new RollbackRefused(
                        RollbackRefused.Kind.RUN_FAILED,
                        "rollback to snapshot "
                            + run.snapshotId()
                            + " in epoch "
                            + run.epoch()
                            + " failed: "
                            + run.failure()));
              } else {
                response.complete(response(a.run(), false, 0)); // still running when the wait ended
              }
            });
  }

  private RollbackRefused refusal(long id, Throwable error) {
    if (error instanceof RollbackRefused r) {
      return r;
    }
    if (error == null) {
      return new RollbackRefused(RollbackRefused.Kind.STOPPING, "the coordinator is stopping");
    }
    log.error("rollback to snapshot {} could not start", id, error);
    return new RollbackRefused(
        RollbackRefused.Kind.ERROR, "rollback could not start: " + error.getMessage());
  }

  private void scheduleDeadline(RollbackRun run, Duration delay) {
    deadlineTimer = loop.schedule(() -> onDeadline(run), delay);
  }

  private void onDeadline(RollbackRun run) {
    if (state != State.RUNNING || active.run() != run || run.finished()) {
      return;
    }
    if (!run.checkDeadline()) {
      Duration left = Duration.between(parts.clock().instant(), run.deadline());
      scheduleDeadline(run, left.isNegative() ? Duration.ZERO : left);
      return;
    }
    failed();
  }

  /**
   * A live worker that the running rollback does not restore, found when it begins or when the
   * worker joins: one with channels fails the run, since the new epoch would drop what is in flight
   * on them and no restore puts it back (the target's checks refuse such a snapshot when they know
   * the worker; this one joined after them).
   */
  private void outsideTheRun(String workerId) {
    if (state != State.RUNNING || active.run().workerIds().contains(workerId)) {
      return;
    }
    Membership.Member m = parts.membership().view().members().get(workerId);
    if (m == null || m.decl().peers().isEmpty()) {
      return;
    }
    active
        .run()
        .fail(
            "worker "
                + workerId
                + " has channels but no piece in snapshot "
                + active.run().snapshotId()
                + "; roll back to a snapshot that holds it");
    failed();
  }

  /** Every worker restored and was sent resume. */
  private void completed() {
    RollbackRun run = active.run();
    // Workers that joined meanwhile but have no piece in the snapshot run again too.
    actions.resumeLive(run.epoch(), w -> run.workerIds().contains(w));
    actions.recordEnd(run.epoch(), run.snapshotId());
    end(State.IDLE);
    parts.lifecycle().resume();
    actions.completed(
        run,
        active.cause(),
        Duration.between(active.requestedAt(), parts.clock().instant()),
        active.restoredLocally());
    publish();
    active.outcome().complete(run);
  }

  /** The deadline passed: the workers stay halted until a rollback succeeds. */
  private void failed() {
    RollbackRun run = active.run();
    end(State.HALTED);
    parts
        .lifecycle()
        .pause(
            SnapshotBlock.Reason.ROLLBACK_FAILED,
            "the rollback to snapshot "
                + run.snapshotId()
                + " failed ("
                + run.failure()
                + "); the workers stay halted until a "
                + "rollback succeeds or it is cancelled");
    actions.failed(
        run, active.cause(), Duration.between(active.requestedAt(), parts.clock().instant()));
    publish();
    active.outcome().complete(run);
    if (policy == RollbackPolicy.LATEST_COMPLETE) {
      // A worker that comes back retries at once (onWorkerJoined); with every worker live (a
      // restore failed) nothing else would, and the cluster would stay halted.
      loop.schedule(this::retryWhileHalted, deadline);
    }
  }

  /** With LATEST_COMPLETE, a failed rollback is tried again every deadline while all are live. */
  private void retryWhileHalted() {
    if (!closed && state == State.HALTED && parts.membership().view().allLive()) {
      prepareAutomatic(
          State.HALTED, lastTarget, "retry after a failed rollback: every worker is live");
    }
  }

  private void end(State next) {
    state = next;
    if (deadlineTimer != null) {
      deadlineTimer.cancel();
      deadlineTimer = null;
    }
  }

  /**
   * A preparation ended without starting a rollback; one that the automatic policy wanted meanwhile
   * starts now.
   */
  private void release() {
    if (state == State.PREPARING) {
      state = stateBeforePreparing;
    }
    publish();
    if (state == State.HALTED && policy == RollbackPolicy.LATEST_COMPLETE && !closed) {
      // a retry (or an operator's rollback) that could not start: the next retry is due as after
      // a failed run, or the cluster would stay halted
      loop.schedule(this::retryWhileHalted, deadline);
    }
    String due = dueAfterPreparation;
    dueAfterPreparation = null;
    if (due != null && !closed && state == State.IDLE) {
      prepareAutomatic(State.IDLE, 0, due + ", while another rollback was being prepared");
    }
  }

  /** Publishes what readers see; called at the end of every event that changed anything. */
  private void publish() {
    RollbackStatus status =
        switch (state) {
          case IDLE -> RollbackStatus.NONE;
          case PREPARING ->
              new RollbackStatus(
                  RollbackStatus.Phase.PREPARING,
                  preparingTarget,
                  0,
                  List.of(),
                  "choosing and verifying the target",
                  "");
          case RUNNING ->
              new RollbackStatus(
                  RollbackStatus.Phase.RUNNING,
                  active.run().snapshotId(),
                  active.run().epoch(),
                  List.copyOf(active.run().waitingForWorkers()),
                  active.run().waitingFor(),
                  active.cause());
          case HALTED ->
              active == null
                  ? new RollbackStatus(
                      RollbackStatus.Phase.FAILED,
                      lastTarget,
                      epoch,
                      List.of(),
                      "the rollback resumed after a restart could not start",
                      "")
                  : new RollbackStatus(
                      RollbackStatus.Phase.FAILED,
                      active.run().snapshotId(),
                      active.run().epoch(),
                      List.copyOf(active.run().waitingForWorkers()),
                      active.run().failure(),
                      active.cause());
        };
    boolean holds =
        state == State.RUNNING
            || state == State.HALTED
            || (state == State.PREPARING && stateBeforePreparing != State.IDLE);
    published = new Published(state, holds, preparingTarget, lastTarget, epoch, status);
  }

  private static RollbackResponse response(RollbackRun run, boolean completed, long micros) {
    return RollbackResponse.newBuilder()
        .setEpoch(run.epoch())
        .setSnapshotId(run.snapshotId())
        .setCompleted(completed)
        .setDurationMicros(micros)
        .build();
  }

  /** Why an Admin rollback runs: the caller's reason, else "requested by an operator". */
  static String cause(RollbackRequest request) {
    String reason = request.getReason().strip();
    if (reason.isEmpty()) {
      return "requested by an operator";
    }
    return reason.length() <= 200 ? reason : reason.substring(0, 200) + "...";
  }
}
