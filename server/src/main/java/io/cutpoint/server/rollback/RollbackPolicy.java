package io.cutpoint.server.rollback;

/** What the coordinator does by itself when a worker is lost. */
public enum RollbackPolicy {
  /** Nothing: only an operator's {@code Rollback} rolls the system back. */
  NONE,
  /**
   * Roll the whole system back to the newest complete snapshot that verifies, once the lost worker
   * has rejoined (or a replacement with the same id has joined), within the rollback deadline.
   */
  LATEST_COMPLETE
}
