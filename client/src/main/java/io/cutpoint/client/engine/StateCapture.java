package io.cutpoint.client.engine;

/**
 * Captures the application's local state. Called by the engine at the instant a snapshot records
 * this worker: after every message delivered before it and before every message sent after it.
 */
@FunctionalInterface
public interface StateCapture {
  CapturedState capture(long snapshotId);
}
