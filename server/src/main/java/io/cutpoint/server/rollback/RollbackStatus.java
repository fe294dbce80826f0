package io.cutpoint.server.rollback;

import java.util.List;

/**
 * Where the coordinator's rollback is, for operators.
 *
 * @param phase where it is
 * @param snapshotId the snapshot it restores (0 when unknown)
 * @param epoch its epoch (0 when unknown)
 * @param waitingFor the workers it waits for (RUNNING) or waited for when it failed (FAILED)
 * @param detail what it waits for in words (RUNNING), or why it failed (FAILED)
 * @param cause who or what started it
 */
public record RollbackStatus(
    Phase phase,
    long snapshotId,
    long epoch,
    List<String> waitingFor,
    String detail,
    String cause) {

  /** No rollback runs and none failed. */
  public static final RollbackStatus NONE = new RollbackStatus(Phase.NONE, 0, 0, List.of(), "", "");

  /** Where a rollback is. */
  public enum Phase {
    /** No rollback runs and none failed. */
    NONE,
    /** A target is being chosen and verified. */
    PREPARING,
    /** The workers are being halted and restored. */
    RUNNING,
    /** It failed: the workers stay halted until a rollback succeeds or it is cancelled. */
    FAILED
  }

  public RollbackStatus {
    waitingFor = List.copyOf(waitingFor);
  }

  /** The outcome of cancelling. */
  public sealed interface Cancel {}

  /**
   * Cancelled: every live worker was sent {@code resume} in {@code epoch}.
   *
   * @param resumedUnrestored the workers resumed with the state they held, not the snapshot's
   * @param resumedAfterRestore the workers whose restore was under way: each resumes once it ends,
   *     with the snapshot's state unless the restore fails
   */
  public record Cancelled(
      long snapshotId, long epoch, List<String> resumedUnrestored, List<String> resumedAfterRestore)
      implements Cancel {
    public Cancelled {
      resumedUnrestored = List.copyOf(resumedUnrestored);
      resumedAfterRestore = List.copyOf(resumedAfterRestore);
    }
  }

  /** Nothing was cancelled, and why. */
  public record NotCancelled(Phase phase, String message) implements Cancel {}
}
