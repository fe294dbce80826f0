package io.cutpoint.server.rollback;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.Halt;
import io.cutpoint.api.v1.Restore;
import io.cutpoint.api.v1.Resume;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.RollbackService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a rollback does to the world: the commands of its run on the session streams, the worker
 * states in the membership, the end recorded in the store (through the store executor), and its
 * events, metrics and log lines. Runs on the coordinator loop; sends never block.
 */
final class RollbackActions {

  private static final Logger log = LoggerFactory.getLogger(RollbackCoordinator.class);

  private final RollbackService.Parts parts;

  RollbackActions(RollbackService.Parts parts) {
    this.parts = parts;
  }

  /** Sends what the run asks for. */
  void carryOut(RollbackRun run, List<RollbackRun.Command> commands) {
    for (RollbackRun.Command c : commands) {
      CoordinatorMessage.Builder m = CoordinatorMessage.newBuilder();
      if (c instanceof RollbackRun.Halt) {
        m.setHalt(Halt.newBuilder().setEpoch(run.epoch()));
      } else if (c instanceof RollbackRun.Restore) {
        m.setRestore(Restore.newBuilder().setSnapshotId(run.snapshotId()).setEpoch(run.epoch()));
      } else {
        m.setResume(Resume.newBuilder().setEpoch(run.epoch()));
      }
      if (!parts.sessions().send(c.workerId(), m.build())) {
        log.debug(
            "rollback to snapshot {}: {} not sent, {} has no live session",
            run.snapshotId(),
            m.getBodyCase(),
            c.workerId());
      }
      if (c instanceof RollbackRun.Resume) {
        parts.membership().setState(c.workerId(), WorkerState.WORKER_STATE_RUNNING);
      }
    }
  }

  /** Sends {@code halt(epoch)} to a worker outside the run (it is resumed with the others). */
  void halt(String workerId, long epoch) {
    parts
        .sessions()
        .send(
            workerId,
            CoordinatorMessage.newBuilder().setHalt(Halt.newBuilder().setEpoch(epoch)).build());
  }

  /** Marks {@code workerId} halted or restored in the membership. */
  void workerState(String workerId, WorkerState state) {
    parts.membership().setState(workerId, state);
  }

  /**
   * Sends {@code resume} in {@code epoch} to every live worker {@code except} holds; answers those
   * resumed.
   */
  List<String> resumeLive(long epoch, java.util.function.Predicate<String> except) {
    List<String> resumed = new ArrayList<>();
    parts
        .membership()
        .view()
        .members()
        .forEach(
            (w, m) -> {
              if (m.live() && !except.test(w)) {
                parts
                    .sessions()
                    .send(
                        w,
                        CoordinatorMessage.newBuilder()
                            .setResume(Resume.newBuilder().setEpoch(epoch))
                            .build());
                parts.membership().setState(w, WorkerState.WORKER_STATE_RUNNING);
                resumed.add(w);
              }
            });
    return resumed;
  }

  /** Records the end of the rollback of {@code epoch} in the store, on the store executor. */
  void recordEnd(long epoch, long snapshotId) {
    parts
        .storeIo()
        .execute(
            "recording the end of the rollback to snapshot "
                + snapshotId
                + " (a restart will redo it)",
            store -> store.finishRollback(epoch));
  }

  /**
   * @param heldLocally the workers that report a copy of the target's state on their own disk
   */
  void started(RollbackRun run, String cause, Set<String> heldLocally) {
    String local =
        heldLocally.isEmpty()
            ? ""
            : "; "
                + heldLocally.size()
                + " of "
                + run.workerIds().size()
                + " workers hold its state on their own disk ("
                + String.join(", ", heldLocally)
                + ")";
    log.info(
        "rollback to snapshot {} started in epoch {} ({}); workers {}{}",
        run.snapshotId(),
        run.epoch(),
        cause,
        run.workerIds(),
        local);
    parts
        .events()
        .publish(
            EventType.EVENT_TYPE_ROLLBACK_STARTED,
            run.snapshotId(),
            null,
            "rollback to snapshot "
                + run.snapshotId()
                + " in epoch "
                + run.epoch()
                + " ("
                + cause
                + ")"
                + local,
            0);
  }

  /**
   * @param restoredLocally the workers that restored from their own copy, not a download
   */
  void completed(RollbackRun run, String cause, Duration took, Set<String> restoredLocally) {
    parts.metrics().rollback(true, took);
    int workers = run.workerIds().size();
    int local = restoredLocally.size();
    parts.metrics().restores(local, workers - local);
    String restores =
        local == 0
            ? ""
            : "; "
                + local
                + " of "
                + workers
                + " workers restored from their local copy ("
                + String.join(", ", restoredLocally)
                + ")";
    log.info(
        "rollback to snapshot {} COMPLETED in epoch {} after {} ms ({}); {} workers resumed{}",
        run.snapshotId(),
        run.epoch(),
        took.toMillis(),
        cause,
        workers,
        restores);
    parts
        .events()
        .publish(
            EventType.EVENT_TYPE_ROLLBACK_COMPLETED,
            run.snapshotId(),
            null,
            "rollback to snapshot "
                + run.snapshotId()
                + " completed in epoch "
                + run.epoch()
                + " ("
                + cause
                + ")"
                + restores,
            took.toNanos() / 1000);
  }

  void failed(RollbackRun run, String cause, Duration took) {
    parts.metrics().rollback(false, took);
    log.error(
        "rollback to snapshot {} FAILED in epoch {} after {} ms ({}): {}; the workers stay "
            + "halted until a rollback succeeds",
        run.snapshotId(),
        run.epoch(),
        took.toMillis(),
        cause,
        run.failure());
    parts
        .events()
        .publish(
            EventType.EVENT_TYPE_ROLLBACK_FAILED,
            run.snapshotId(),
            null,
            "rollback to snapshot "
                + run.snapshotId()
                + " in epoch "
                + run.epoch()
                + " failed: "
                + run.failure(),
            took.toNanos() / 1000);
  }

  void cancelled(long snapshotId, long epoch, List<String> unrestored, List<String> afterRestore) {
    log.warn(
        "rollback to snapshot {} in epoch {} CANCELLED by an operator; workers resumed with the "
            + "state they hold, not restored: {}; resuming once their restore under way ends: {}",
        snapshotId,
        epoch,
        unrestored,
        afterRestore);
    parts
        .events()
        .publish(
            EventType.EVENT_TYPE_ROLLBACK_CANCELLED,
            snapshotId,
            null,
            "rollback to snapshot "
                + snapshotId
                + " in epoch "
                + epoch
                + " cancelled by an operator; resumed without a restore: "
                + unrestored
                + (afterRestore.isEmpty()
                    ? ""
                    : "; resumed once their restore under way ends: " + afterRestore),
            0);
  }

  /** An automatic rollback skips the snapshots that fail their checksums. */
  void fellBack(String cause, RollbackTargets.Choice choice) {
    for (RollbackTargets.Corrupt c : choice.corrupt()) {
      String older =
          choice
              .target()
              .map(m -> "falling back to snapshot " + m.getSnapshotId())
              .orElse("no older snapshot verifies");
      log.warn(
          "automatic rollback ({}): snapshot {} fails its checksums ({}); {}",
          cause,
          c.snapshotId(),
          c.reason(),
          older);
      parts
          .events()
          .publish(
              EventType.EVENT_TYPE_ROLLBACK_FALLBACK,
              c.snapshotId(),
              null,
              "snapshot " + c.snapshotId() + " fails its checksums (" + c.reason() + "); " + older,
              0);
    }
  }

  /** An automatic rollback could not start. */
  void notStarted(String cause, String why, Throwable error, Duration took) {
    if (error == null) {
      log.error("automatic rollback ({}) not possible: {}", cause, why);
      parts
          .events()
          .publish(
              EventType.EVENT_TYPE_ROLLBACK_FAILED,
              0,
              null,
              "automatic rollback (" + cause + ") not possible: " + why,
              0);
      parts.metrics().rollback(false, took);
    } else {
      log.error("automatic rollback ({}) could not start", cause, error);
      parts
          .events()
          .publish(
              EventType.EVENT_TYPE_ROLLBACK_FAILED,
              0,
              null,
              "automatic rollback (" + cause + ") could not start: " + error.getMessage(),
              0);
    }
  }

  /**
   * A fresh worker joined although a snapshot holds its state, and the policy does not roll back.
   */
  void freshNotRolledBack(String workerId, long holder, RollbackPolicy policy) {
    log.warn(
        "worker {} joined with a fresh state although complete snapshot {} holds its state; rollback "
            + "policy {}: not rolled back, its previous state is lost unless an operator rolls back",
        workerId,
        holder,
        policy);
    parts
        .events()
        .publish(
            EventType.EVENT_TYPE_WORKER_JOINED,
            holder,
            workerId,
            "joined with a fresh state although snapshot "
                + holder
                + " holds its state; not "
                + "rolled back (rollback policy "
                + policy
                + ")",
            0);
  }
}
