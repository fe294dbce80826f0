package io.cutpoint.server.rollback;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.Halt;
import io.cutpoint.api.v1.Restore;
import io.cutpoint.api.v1.Resume;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.CoordinatorContext;
import io.cutpoint.server.RollbackService;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.Scheduler;
import io.cutpoint.server.lifecycle.SnapshotBlock;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.storage.SnapshotStore.RollbackIntent;
import io.cutpoint.storage.StoreException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's rollback: thin wiring around the pure {@link RollbackRun}. It checks the
 * target ({@link RollbackTargets}), persists the new epoch before anything else, pauses and aborts
 * snapshots, sends the run's commands on the session streams, keeps the membership's worker states,
 * times the deadline, finishes the rollback in the store, and reports events, metrics and one INFO
 * line per rollback. The automatic policy starts a rollback when a worker is lost, or joins with
 * a fresh state although a complete snapshot holds its state.
 *
 * <p>States: IDLE; PREPARING (a target is being chosen and verified, off the gRPC threads);
 * RUNNING (a {@link RollbackRun}); HALTED (a rollback failed: the workers stay halted, joiners are
 * welcomed halted, snapshots are refused, until a new rollback succeeds or an operator cancels it). One rollback at a time: a request while
 * PREPARING or RUNNING gets FAILED_PRECONDITION. One lock; it is taken before the lifecycle's,
 * the membership's and a session's, and nothing calls in here while holding those.
 */
public final class RollbackCoordinator implements RollbackService {

  private static final Logger log = LoggerFactory.getLogger(RollbackCoordinator.class);

  /** The factory to hand to {@code CoordinatorServer.start}. */
  public static RollbackService.Factory factory() {
    return RollbackCoordinator::new;
  }

  private enum State { IDLE, PREPARING, RUNNING, HALTED }

  /** The rollback being run, with who asked and who waits. */
  private record Active(RollbackRun run, String cause, Instant requestedAt,
      CompletableFuture<RollbackRun> outcome) {}

  private final CoordinatorContext ctx;
  private final RollbackPolicy policy;
  private final Duration deadline;
  private final RollbackTargets targets;
  private final ExecutorService preparer;
  private final Object lock = new Object();
  // Guarded by lock:
  private State state = State.IDLE;
  private State stateBeforePreparing = State.IDLE;
  private long preparingTarget;
  private Active active;
  private long lastTarget;
  private Scheduler.Cancellable deadlineTimer;
  private boolean closed;

  public RollbackCoordinator(CoordinatorContext ctx) {
    this.ctx = ctx;
    this.policy = ctx.config().rollbackPolicy();
    this.deadline = ctx.config().rollbackDeadline();
    this.targets = new RollbackTargets(ctx.store());
    this.preparer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "cutpoint-rollback");
      t.setDaemon(true);
      return t;
    });
    if (ctx.store().rollbackInProgress().isPresent()) {
      state = State.PREPARING; // joiners are welcomed halted until start() resumes it
    }
  }

  // ---- RollbackService --------------------------------------------------------------------------

  @Override
  public void start() {
    Optional<RollbackIntent> intent = ctx.store().rollbackInProgress();
    if (intent.isEmpty()) {
      return;
    }
    RollbackIntent i = intent.get();
    log.warn("a rollback to snapshot {} (epoch {}) was in progress when the coordinator stopped; "
        + "finishing it in a new epoch", i.snapshotId(), i.epoch());
    synchronized (lock) {
      state = State.PREPARING;
      stateBeforePreparing = State.HALTED;
      preparingTarget = i.snapshotId();
    }
    prepareAutomatic("resumed after a coordinator restart (was epoch " + i.epoch() + ")", i.snapshotId());
  }

  @Override
  public CompletableFuture<RollbackResponse> rollback(RollbackRequest request) {
    Instant requestedAt = ctx.clock().instant();
    synchronized (lock) {
      Optional<StatusRuntimeException> busy = busy();
      if (busy.isPresent()) {
        return CompletableFuture.failedFuture(busy.get());
      }
      stateBeforePreparing = state;
      state = State.PREPARING;
      preparingTarget = request.getSnapshotId();
    }
    CompletableFuture<RollbackResponse> response = new CompletableFuture<>();
    submit(() -> {
      Active a;
      try {
        SnapshotManifest target = targets.operatorTarget(request.getSnapshotId(), ctx.membership().view());
        a = begin(target, cause(request), requestedAt);
      } catch (StatusRuntimeException e) {
        release();
        response.completeExceptionally(e);
        return;
      } catch (RuntimeException e) {
        release();
        log.error("rollback to snapshot {} could not start", request.getSnapshotId(), e);
        response.completeExceptionally(Status.INTERNAL.withDescription(
            "rollback could not start: " + e.getMessage()).asRuntimeException());
        return;
      }
      if (!request.getWait()) {
        response.complete(answer(a.run(), false, 0));
        return;
      }
      // Without a wait timeout, wait for the outcome: the run ends by its deadline anyway.
      CompletableFuture<RollbackRun> outcome = request.getWaitTimeoutMs() == 0 ? a.outcome().copy()
          : a.outcome().copy().orTimeout(request.getWaitTimeoutMs(), TimeUnit.MILLISECONDS);
      outcome.whenComplete((run, error) -> {
        if (error == null && run.phase() == RollbackRun.Phase.COMPLETED) {
          long micros = Math.max(0, Duration.between(requestedAt, ctx.clock().instant()).toNanos() / 1000);
          response.complete(answer(run, true, micros));
        } else if (error == null) {
          response.completeExceptionally(Status.ABORTED.withDescription("rollback to snapshot "
              + run.snapshotId() + " in epoch " + run.epoch() + " failed: " + run.failure()).asRuntimeException());
        } else {
          response.complete(answer(a.run(), false, 0)); // still running when the wait ended
        }
      });
    }, response);
    return response;
  }

  @Override
  public boolean inProgress() {
    synchronized (lock) {
      return state == State.PREPARING || state == State.RUNNING;
    }
  }

  @Override
  public boolean holdsWorkers() {
    synchronized (lock) {
      return state != State.IDLE;
    }
  }

  @Override
  public RollbackStatus status() {
    synchronized (lock) {
      return switch (state) {
        case IDLE -> RollbackStatus.NONE;
        case PREPARING -> new RollbackStatus(RollbackStatus.Phase.PREPARING, preparingTarget, 0,
            List.of(), "choosing and verifying the target", "");
        case RUNNING -> new RollbackStatus(RollbackStatus.Phase.RUNNING, active.run().snapshotId(),
            active.run().epoch(), List.copyOf(active.run().waitingForWorkers()),
            active.run().waitingFor(), active.cause());
        case HALTED -> active == null
            ? new RollbackStatus(RollbackStatus.Phase.FAILED, lastTarget, ctx.store().epoch(), List.of(),
                "the rollback resumed after a restart could not start", "")
            : new RollbackStatus(RollbackStatus.Phase.FAILED, active.run().snapshotId(),
                active.run().epoch(), List.copyOf(active.run().waitingForWorkers()),
                active.run().failure(), active.cause());
      };
    }
  }

  @Override
  public Optional<String> needs(String workerId) {
    synchronized (lock) {
      if (state == State.PREPARING) {
        return Optional.of("a rollback is being prepared");
      }
      if ((state == State.RUNNING || state == State.HALTED) && active != null
          && active.run().workerIds().contains(workerId)) {
        return Optional.of("the " + (state == State.RUNNING ? "running" : "failed") + " rollback to snapshot "
            + active.run().snapshotId() + " restores it; " + (state == State.RUNNING
                ? "wait for it or cancel it" : "retry or cancel it") + " first");
      }
      return Optional.empty();
    }
  }

  @Override
  public RollbackStatus.Cancel cancel() {
    List<String> unrestored = new java.util.ArrayList<>();
    long snapshotId;
    long epoch;
    synchronized (lock) {
      if (closed) {
        return new RollbackStatus.NotCancelled(RollbackStatus.Phase.NONE, "the coordinator is stopping");
      }
      if (state == State.IDLE || state == State.PREPARING) {
        return new RollbackStatus.NotCancelled(state == State.IDLE ? RollbackStatus.Phase.NONE
            : RollbackStatus.Phase.PREPARING, state == State.IDLE ? "no rollback runs or failed"
                : "a rollback is being prepared; cancel it once it runs");
      }
      RollbackRun run = active == null ? null : active.run();
      boolean wasRunning = state == State.RUNNING;
      snapshotId = run == null ? lastTarget : run.snapshotId();
      epoch = run == null ? ctx.store().epoch() : run.epoch();
      if (run != null) {
        run.fail("cancelled by an operator");
      }
      end(State.IDLE);
      ctx.membership().view().members().forEach((w, m) -> {
        if (!m.live()) {
          return;
        }
        if (run == null || run.workers().get(w) != RollbackRun.WorkerStep.RESTORED) {
          unrestored.add(w);
        }
        ctx.sessions().send(w, CoordinatorMessage.newBuilder().setResume(Resume.newBuilder().setEpoch(epoch)).build());
        ctx.membership().setState(w, WorkerState.WORKER_STATE_RUNNING);
      });
      try {
        ctx.store().finishRollback(epoch);
      } catch (StoreException e) {
        log.error("cancelled rollback to snapshot {}: could not record its end (a restart will redo it)", snapshotId, e);
      }
      ctx.lifecycle().resume();
      if (wasRunning) {
        ctx.metrics().rollback(false, Duration.between(active.requestedAt(), ctx.clock().instant()));
      }
      log.warn("rollback to snapshot {} in epoch {} CANCELLED by an operator; workers resumed with the "
          + "state they hold, not restored: {}", snapshotId, epoch, unrestored);
      ctx.events().publish(EventType.EVENT_TYPE_ROLLBACK_CANCELLED, snapshotId, null, "rollback to snapshot "
          + snapshotId + " in epoch " + epoch + " cancelled by an operator; resumed without a restore: "
          + unrestored, 0);
      if (active != null) {
        active.outcome().complete(run);
      }
    }
    ctx.refreshWorkerGauges();
    return new RollbackStatus.Cancelled(snapshotId, epoch, unrestored);
  }

  @Override
  public boolean uses(long snapshotId) {
    synchronized (lock) {
      return (state == State.PREPARING && preparingTarget == snapshotId)
          || (state != State.IDLE && lastTarget == snapshotId);
    }
  }

  @Override
  public void onHalted(String workerId, long epoch) {
    synchronized (lock) {
      if (state != State.RUNNING) {
        return;
      }
      RollbackRun run = active.run();
      RollbackRun.WorkerStep before = run.workers().get(workerId);
      List<RollbackRun.Command> commands = run.halted(workerId, epoch);
      if (before != run.workers().get(workerId)) { // a first answer, not a stale or repeated one
        ctx.membership().setState(workerId, WorkerState.WORKER_STATE_HALTED);
      }
      carryOut(run, commands);
    }
    ctx.refreshWorkerGauges();
  }

  @Override
  public void onRestored(String workerId, long epoch, long snapshotId) {
    synchronized (lock) {
      if (state != State.RUNNING) {
        return;
      }
      RollbackRun run = active.run();
      List<RollbackRun.Command> commands = run.restored(workerId, epoch, snapshotId);
      if (run.workers().get(workerId) == RollbackRun.WorkerStep.RESTORED) {
        ctx.membership().setState(workerId, WorkerState.WORKER_STATE_RESTORED);
      }
      carryOut(run, commands);
      if (run.phase() == RollbackRun.Phase.COMPLETED) {
        completed();
      }
    }
    ctx.refreshWorkerGauges();
  }

  @Override
  public void onWorkerJoined(String workerId) {
    boolean retry = false;
    synchronized (lock) {
      if (state == State.RUNNING) {
        carryOut(active.run(), active.run().joined(workerId));
      } else if (state == State.HALTED && policy == RollbackPolicy.LATEST_COMPLETE
          && ctx.membership().view().allLive()) {
        retry = true;
        stateBeforePreparing = State.HALTED;
        state = State.PREPARING;
        preparingTarget = lastTarget;
      }
    }
    if (retry) {
      prepareAutomatic("retry after a failed rollback: every worker is back", lastTarget());
    }
  }

  @Override
  public void onWorkerLost(String workerId) {
    boolean start = false;
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (state == State.RUNNING) {
        active.run().lost(workerId);
      } else if (state == State.IDLE && policy == RollbackPolicy.LATEST_COMPLETE) {
        start = true;
        stateBeforePreparing = State.IDLE;
        state = State.PREPARING;
        preparingTarget = 0;
      }
    }
    if (start) {
      prepareAutomatic("worker " + workerId + " was lost", 0);
    }
  }

  /**
   * A worker whose state is its initial one joined. When a complete snapshot holds its state, what
   * it ran before is lost: with LATEST_COMPLETE it is treated like a lost worker (unless a rollback
   * is already under way, which restores it anyway); with NONE it is only reported. This is what
   * notices a worker that restarted while no coordinator ran, and recovers a whole cluster that
   * restarts fresh (cold restart).
   */
  @Override
  public void onFreshWorkerJoined(String workerId) {
    Optional<Long> holder = targets.newestHolding(workerId);
    if (holder.isEmpty()) {
      return; // a new worker, or no complete snapshot yet: its initial state is all there is
    }
    String cause = "worker " + workerId + " joined with a fresh state";
    if (policy != RollbackPolicy.LATEST_COMPLETE) {
      log.warn("{} although complete snapshot {} holds its state; rollback policy {}: not rolled "
          + "back, its previous state is lost unless an operator rolls back", cause, holder.get(), policy);
      ctx.events().publish(EventType.EVENT_TYPE_WORKER_JOINED, holder.get(), workerId,
          "joined with a fresh state although snapshot " + holder.get() + " holds its state; not "
              + "rolled back (rollback policy " + policy + ")", 0);
      return;
    }
    synchronized (lock) {
      if (closed || state != State.IDLE) {
        return;
      }
      stateBeforePreparing = State.IDLE;
      state = State.PREPARING;
      preparingTarget = 0;
    }
    prepareAutomatic(cause, 0);
  }

  @Override
  public void close() {
    Active a;
    synchronized (lock) {
      closed = true;
      if (deadlineTimer != null) {
        deadlineTimer.cancel();
      }
      a = active;
    }
    preparer.shutdownNow();
    try {
      preparer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (a != null && !a.outcome().isDone()) {
      a.outcome().completeExceptionally(Status.UNAVAILABLE.withDescription(
          "the coordinator stopped; it resumes the rollback when it starts again").asRuntimeException());
    }
  }

  // ---- steps ----------------------------------------------------------------------------------

  private Optional<StatusRuntimeException> busy() {
    if (closed) {
      return Optional.of(Status.UNAVAILABLE.withDescription("the coordinator is stopping").asRuntimeException());
    }
    if (state == State.PREPARING) {
      return Optional.of(Status.FAILED_PRECONDITION.withDescription(
          "a rollback is being prepared; one rollback at a time").asRuntimeException());
    }
    if (state == State.RUNNING) {
      RollbackRun run = active.run();
      return Optional.of(Status.FAILED_PRECONDITION.withDescription("a rollback to snapshot "
          + run.snapshotId() + " (epoch " + run.epoch() + ") is in progress, waiting for "
          + run.waitingFor() + "; one rollback at a time").asRuntimeException());
    }
    return Optional.empty();
  }

  /** Chooses the newest verified target (reporting fallbacks) and begins, on the preparer thread. */
  private void prepareAutomatic(String cause, long preferred) {
    Instant requestedAt = ctx.clock().instant();
    submit(() -> {
      try {
        RollbackTargets.Choice choice = targets.automaticTarget(ctx.membership().view(), preferred);
        for (RollbackTargets.Corrupt c : choice.corrupt()) {
          String older = choice.target().map(m -> "falling back to snapshot " + m.getSnapshotId())
              .orElse("no older snapshot verifies");
          log.warn("automatic rollback ({}): snapshot {} fails its checksums ({}); {}", cause,
              c.snapshotId(), c.reason(), older);
          ctx.events().publish(EventType.EVENT_TYPE_ROLLBACK_FALLBACK, c.snapshotId(), null,
              "snapshot " + c.snapshotId() + " fails its checksums (" + c.reason() + "); " + older, 0);
        }
        if (choice.target().isEmpty()) {
          log.error("automatic rollback ({}) not possible: {}", cause, choice.reasonIfNone());
          ctx.events().publish(EventType.EVENT_TYPE_ROLLBACK_FAILED, 0, null,
              "automatic rollback (" + cause + ") not possible: " + choice.reasonIfNone(), 0);
          ctx.metrics().rollback(false, Duration.between(requestedAt, ctx.clock().instant()));
          release();
          return;
        }
        begin(choice.target().get(), "automatic: " + cause, requestedAt);
      } catch (RuntimeException e) {
        log.error("automatic rollback ({}) could not start", cause, e);
        ctx.events().publish(EventType.EVENT_TYPE_ROLLBACK_FAILED, 0, null,
            "automatic rollback (" + cause + ") could not start: " + e.getMessage(), 0);
        release();
      }
    }, null);
  }

  /** Persists the new epoch, then pauses snapshots, aborts pending ones and halts every worker. */
  private Active begin(SnapshotManifest target, String cause, Instant requestedAt) {
    long id = target.getSnapshotId();
    Set<String> workers = new TreeSet<>();
    for (WorkerDecl d : target.getTopology().getWorkersList()) {
      workers.add(d.getWorkerId());
    }
    synchronized (lock) {
      if (closed) {
        throw Status.UNAVAILABLE.withDescription("the coordinator is stopping").asRuntimeException();
      }
      long epoch = ctx.store().epoch() + 1;
      ctx.store().beginRollback(epoch, id); // first: a coordinator killed from here on resumes it
      ctx.lifecycle().pause(SnapshotBlock.Reason.ROLLBACK_IN_PROGRESS, "a rollback to snapshot " + id + " is in progress");
      ctx.lifecycle().abortAll(FailureReason.COORDINATOR, "rollback to snapshot " + id + " (epoch " + epoch + ")");
      RollbackRun run = new RollbackRun(epoch, id, workers, ctx.clock(), deadline);
      active = new Active(run, cause, requestedAt, new CompletableFuture<>());
      state = State.RUNNING;
      lastTarget = id;
      Membership.View view = ctx.membership().view();
      Set<String> live = new TreeSet<>();
      view.members().forEach((w, m) -> {
        if (m.live()) {
          live.add(w);
        }
      });
      log.info("rollback to snapshot {} started in epoch {} ({}); workers {}", id, epoch, cause, workers);
      ctx.events().publish(EventType.EVENT_TYPE_ROLLBACK_STARTED, id, null,
          "rollback to snapshot " + id + " in epoch " + epoch + " (" + cause + ")", 0);
      carryOut(run, run.begin(live));
      scheduleDeadline(run, deadline);
      return active;
    }
  }

  private void scheduleDeadline(RollbackRun run, Duration delay) {
    deadlineTimer = ctx.scheduler().schedule(() -> onDeadline(run), delay);
  }

  private void onDeadline(RollbackRun run) {
    synchronized (lock) {
      if (state != State.RUNNING || active.run() != run || run.finished()) {
        return;
      }
      if (!run.checkDeadline()) {
        Duration left = Duration.between(ctx.clock().instant(), run.deadline());
        scheduleDeadline(run, left.isNegative() ? Duration.ZERO : left);
        return;
      }
      failed();
    }
  }

  /** Sends what the run asks for. Under the lock. */
  private void carryOut(RollbackRun run, List<RollbackRun.Command> commands) {
    for (RollbackRun.Command c : commands) {
      CoordinatorMessage.Builder m = CoordinatorMessage.newBuilder();
      if (c instanceof RollbackRun.Halt) {
        m.setHalt(Halt.newBuilder().setEpoch(run.epoch()));
      } else if (c instanceof RollbackRun.Restore) {
        m.setRestore(Restore.newBuilder().setSnapshotId(run.snapshotId()).setEpoch(run.epoch()));
      } else {
        m.setResume(Resume.newBuilder().setEpoch(run.epoch()));
      }
      if (!ctx.sessions().send(c.workerId(), m.build())) {
        log.debug("rollback to snapshot {}: {} not sent, {} has no live session", run.snapshotId(),
            m.getBodyCase(), c.workerId());
      }
      if (c instanceof RollbackRun.Resume) {
        ctx.membership().setState(c.workerId(), WorkerState.WORKER_STATE_RUNNING);
      }
    }
  }

  /** Every worker restored and was sent resume. Under the lock. */
  private void completed() {
    RollbackRun run = active.run();
    // Workers that joined meanwhile but have no piece in the snapshot run again too.
    ctx.membership().view().members().forEach((w, m) -> {
      if (m.live() && !run.workerIds().contains(w)) {
        ctx.sessions().send(w, CoordinatorMessage.newBuilder()
            .setResume(Resume.newBuilder().setEpoch(run.epoch())).build());
        ctx.membership().setState(w, WorkerState.WORKER_STATE_RUNNING);
      }
    });
    try {
      ctx.store().finishRollback(run.epoch());
    } catch (StoreException e) {
      log.error("rollback to snapshot {}: could not record its end (a restart will redo it)", run.snapshotId(), e);
    }
    end(State.IDLE);
    ctx.lifecycle().resume();
    Duration took = Duration.between(active.requestedAt(), ctx.clock().instant());
    ctx.metrics().rollback(true, took);
    log.info("rollback to snapshot {} COMPLETED in epoch {} after {} ms ({}); {} workers resumed",
        run.snapshotId(), run.epoch(), took.toMillis(), active.cause(), run.workerIds().size());
    ctx.events().publish(EventType.EVENT_TYPE_ROLLBACK_COMPLETED, run.snapshotId(), null,
        "rollback to snapshot " + run.snapshotId() + " completed in epoch " + run.epoch() + " ("
            + active.cause() + ")", took.toNanos() / 1000);
    active.outcome().complete(run);
  }

  /** The deadline passed: the workers stay halted until a rollback succeeds. Under the lock. */
  private void failed() {
    RollbackRun run = active.run();
    end(State.HALTED);
    ctx.lifecycle().pause(SnapshotBlock.Reason.ROLLBACK_FAILED, "the rollback to snapshot "
        + run.snapshotId() + " failed (" + run.failure() + "); the workers stay halted until a "
        + "rollback succeeds or it is cancelled");
    Duration took = Duration.between(active.requestedAt(), ctx.clock().instant());
    ctx.metrics().rollback(false, took);
    log.error("rollback to snapshot {} FAILED in epoch {} after {} ms ({}): {}; the workers stay "
        + "halted until a rollback succeeds", run.snapshotId(), run.epoch(), took.toMillis(),
        active.cause(), run.failure());
    ctx.events().publish(EventType.EVENT_TYPE_ROLLBACK_FAILED, run.snapshotId(), null,
        "rollback to snapshot " + run.snapshotId() + " in epoch " + run.epoch() + " failed: "
            + run.failure(), took.toNanos() / 1000);
    active.outcome().complete(run);
  }

  private void end(State next) {
    state = next;
    if (deadlineTimer != null) {
      deadlineTimer.cancel();
      deadlineTimer = null;
    }
  }

  /** A preparation ended without starting a rollback. */
  private void release() {
    synchronized (lock) {
      if (state == State.PREPARING) {
        state = stateBeforePreparing;
      }
    }
  }

  private long lastTarget() {
    synchronized (lock) {
      return lastTarget;
    }
  }

  private void submit(Runnable task, CompletableFuture<?> orFail) {
    try {
      preparer.execute(task);
    } catch (RejectedExecutionException e) {
      release();
      if (orFail != null) {
        orFail.completeExceptionally(Status.UNAVAILABLE.withDescription("the coordinator is stopping")
            .asRuntimeException());
      }
    }
  }

  private static RollbackResponse answer(RollbackRun run, boolean completed, long micros) {
    return RollbackResponse.newBuilder().setEpoch(run.epoch()).setSnapshotId(run.snapshotId())
        .setCompleted(completed).setDurationMicros(micros).build();
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
