package io.cutpoint.client;

import io.cutpoint.client.engine.CapturedState;

/**
 * Captures and restores the application's local state. Both methods are called on the worker's
 * event thread, never while a {@link MessageHandler} runs, so the captured state sits exactly
 * between the messages delivered before it and the messages sent after it.
 */
public interface StateHandler {

  /** The application's state, as bytes. The array is not copied: do not change it afterwards. */
  byte[] capture();

  /**
   * Replaces the application's state with {@code state} (bytes an earlier capture returned). The
   * worker applies the snapshot's channel counters and recorded messages only after this returns.
   * If it throws, leave the application's state as it was: the worker keeps what it held, stays
   * halted and tells the coordinator, whose rollback then fails; it runs again on that state only
   * if an operator cancels the rollback.
   */
  void restore(byte[] state);

  /**
   * The state plus what the application declares about itself (activity, wait-for edges). The
   * default declares nothing; override it to feed the termination and deadlock analyses.
   */
  default CapturedState captureState(long snapshotId) {
    return CapturedState.of(capture());
  }
}
