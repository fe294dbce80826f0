package io.cutpoint.server.lifecycle;

/**
 * How the lifecycle talks to workers. Implementations must not block (they queue a message on the
 * worker's session) and ignore workers without a live session.
 */
public interface WorkerCommands {

  /** Tells {@code workerId} to initiate snapshot {@code snapshotId} now. */
  void startSnapshot(String workerId, long snapshotId, long epoch);

  /** Tells {@code workerId} to drop whatever it recorded for {@code snapshotId}. */
  void abortSnapshot(String workerId, long snapshotId, String reason);
}
