package io.cutpoint.client.sim;

/**
 * Deliberately wrong engine behaviours, layered around the real engine by {@link EngineNode}, to
 * show that the simulator's checks catch a broken Chandy-Lamport implementation.
 */
public enum Fault {
  /** The correct engine. */
  NONE,
  /**
   * Markers go out after the next data message on their channel (carrying the count at that
   * moment), instead of before anything else is sent.
   */
  LATE_MARKERS,
  /**
   * The channel whose marker triggered the recording is recorded too (until the piece completes)
   * instead of being recorded empty.
   */
  RECORDS_FIRST_MARKER_CHANNEL,
  /** Channel states are reported empty: in-flight messages are lost from the cut. */
  DROPS_CHANNEL_STATE,
  /**
   * With early copies of markers: an early copy is taken for the marker itself, without its
   * boundary, so the data it overtook is delivered but not recorded.
   */
  EARLY_MARKER_IGNORES_BOUNDARY;

  /** The lane this fault runs on (the correct engine it is compared with runs on it too). */
  public MarkerLane lane() {
    return this == EARLY_MARKER_IGNORES_BOUNDARY ? MarkerLane.EARLY_COPIES : MarkerLane.IN_ORDER;
  }
}
