package io.cutpoint.server.rollback;

/**
 * Why a rollback was refused or did not finish, in the domain's words; the Admin service maps the
 * {@link Kind} to a gRPC status at its edge. Completes a rollback's future exceptionally.
 */
public final class RollbackRefused extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The kinds of refusal. */
  public enum Kind {
    /** The request names no snapshot (id 0). */
    BAD_TARGET_ID,
    /** No such snapshot. */
    NO_SUCH_SNAPSHOT,
    /** Not now: another rollback runs, or the target does not qualify (not complete, unfit). */
    NOT_NOW,
    /** The target fails its checksums. */
    TARGET_DAMAGED,
    /** The coordinator is stopping. */
    STOPPING,
    /** The rollback started but did not complete (deadline, cancelled). */
    RUN_FAILED,
    /** This coordinator has no rollback. */
    NOT_SUPPORTED,
    /** It could not start for another reason (the store failed). */
    ERROR
  }

  private final Kind kind;

  public RollbackRefused(Kind kind, String message) {
    super(message, null, false, false);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
