package io.cutpoint.client.session;

import io.grpc.Status;

/**
 * Observes a {@link CoordinatorSession}. Called on the worker's event loop (or the session's own
 * thread, for a worker without one) and from {@code close()}: keep it quick, and do not wait for
 * the worker there. It may call {@link CoordinatorSession#close()}, which then completes on another
 * thread.
 */
public interface SessionListener {

  /** The session moved from {@code from} to {@code to}. */
  default void stateChanged(SessionState from, SessionState to) {}

  /**
   * The coordinator refused the join for good (INVALID_ARGUMENT, FAILED_PRECONDITION,
   * PERMISSION_DENIED, UNAUTHENTICATED): the session is CLOSED and will not retry.
   */
  default void fatal(Status status) {}

  /** A restore could not be done (download failed or corrupt, twice): the worker stays halted. */
  default void restoreFailed(long snapshotId, String reason) {}

  /** A local snapshot's upload finished; {@code stateBytes} as the coordinator stored them. */
  default void uploaded(long snapshotId, long stateBytes) {}

  /** A local snapshot could not be uploaded (or was given up by the worker). */
  default void uploadFailed(long snapshotId, String reason) {}
}
