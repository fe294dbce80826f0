package io.cutpoint.server.lifecycle;

/** Whether an upload of a worker's piece may proceed (checked when its header arrives). */
public enum Admission {
  /**
   * The snapshot is pending, covers the worker, and has no piece from it yet, nor an upload of one
   * under way.
   */
  ADMITTED,
  /** The worker already delivered its piece. */
  DUPLICATE,
  /** Another upload of the worker's piece is under way; only one at a time is admitted. */
  IN_PROGRESS,
  /** No such snapshot (recently). */
  UNKNOWN,
  /** The snapshot has ended. */
  ENDED,
  /** The snapshot does not cover this worker. */
  NOT_A_PARTICIPANT
}
