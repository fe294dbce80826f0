package io.cutpoint.client.engine;

import io.cutpoint.cut.LocalSnapshot;

/**
 * A worker's finished piece of snapshot {@code cut.snapshotId()}: counters and channel recordings
 * ({@code cut}) plus the captured application state.
 *
 * @param cut counters and recordings, as {@link io.cutpoint.cut.CutVerifier} checks them
 * @param state what the application captured
 * @param recordingNanos nanoseconds (engine clock) from recording the state to the last marker
 * @param timeline when each step happened, for the snapshot's trace
 */
public record CompletedLocalSnapshot(
    LocalSnapshot cut, CapturedState state, long recordingNanos, LocalTimeline timeline) {

  /** A piece with no timeline. */
  public CompletedLocalSnapshot(LocalSnapshot cut, CapturedState state, long recordingNanos) {
    this(cut, state, recordingNanos, LocalTimeline.NONE);
  }
}
