package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.SnapshotManifest;
import java.time.Duration;

/**
 * Hears what happens to snapshots: events, metrics and retention hang off it. Called on the
 * coordinator's loop once the snapshot's outcome is published and its waiters are answered (a
 * metric or an event may so follow a trigger's reply by a moment), so implementations must be quick
 * and must not call back into the lifecycle.
 */
public interface SnapshotListener {

  /** A snapshot started (manifest PENDING). */
  default void started(SnapshotManifest pending) {}

  /** A snapshot was committed. */
  default void completed(CompletedSnapshot snapshot) {}

  /**
   * A snapshot ended ABORTED or FAILED.
   *
   * @param toleranceExceeded this failure made the consecutive failures exceed the tolerable number
   */
  default void ended(
      SnapshotManifest manifest,
      FailureReason reason,
      Duration duration,
      boolean toleranceExceeded) {}
}
