package io.cutpoint.server.sim;

/**
 * Deliberately broken variants of the schedules ({@link Simulation}), to show that their checks
 * catch a wrong worker core or a wrong coordinator core. The three worker variants are test-only
 * switches of the production {@code WorkerCore} ({@code WorkerCore.Broken}); the last one is the
 * production {@code SnapshotLifecycle}'s ({@code SnapshotLifecycle.Broken}). None is ever set in
 * production.
 */
public enum Variant {
  /** The production worker and coordinator cores. */
  NONE,
  /** The worker core takes frames of older epochs like frames of its own (no epoch fencing). */
  NO_EPOCH_FENCING,
  /** On resume, the core delivers new frames of the new epoch before the recorded messages. */
  REPLAY_AFTER_NEW_TRAFFIC,
  /**
   * The worker core takes a marker it read ahead as if no data were queued before it (in the
   * schedules whose cores read ahead): that data is neither in the state nor in the channel.
   */
  MARKER_AHEAD_DROPS_DATA_AT_HAND,
  /** The lifecycle verifies and commits a snapshot once every piece but one arrived. */
  EARLY_COMMIT
}
