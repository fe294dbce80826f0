package io.cutpoint.client.sim;

/**
 * Deliberately broken variants of the worker-level schedules ({@link Simulation}), to show that
 * their checks catch a wrong worker core or a wrong coordinator. The two core variants are
 * test-only switches of the production {@code WorkerCore}; the last one is {@link
 * SimCoordinator}'s.
 */
public enum Variant {
  /** The production worker core and a correct coordinator. */
  NONE,
  /** The worker core takes frames of older epochs like frames of its own (no epoch fencing). */
  NO_EPOCH_FENCING,
  /** On resume, the core delivers new frames of the new epoch before the recorded messages. */
  REPLAY_AFTER_NEW_TRAFFIC,
  /** The coordinator commits a snapshot once every piece but one arrived. */
  EARLY_COMMIT
}
