package io.cutpoint.client.engine;

import io.cutpoint.cut.LocalSnapshot;

/**
 * A worker's finished piece of snapshot {@code cut.snapshotId()}: counters and channel recordings
 * ({@code cut}) plus the captured application state.
 *
 * @param cut counters and recordings, as {@link io.cutpoint.cut.CutVerifier} checks them
 * @param state what the application captured
 * @param recordingNanos nanoseconds (engine clock) from recording the state to the last marker
 */
public record CompletedLocalSnapshot(LocalSnapshot cut, CapturedState state, long recordingNanos) {}
