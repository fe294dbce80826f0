package io.cutpoint.client.sim;

/** How markers travel in an engine-level schedule ({@link EngineSimulation}). */
public enum MarkerLane {
  /** Each marker travels once, in channel order with the data (FIFO). */
  IN_ORDER,
  /**
   * Each marker travels in channel order and, as an early copy ({@code SnapshotEngine
   * #onEarlyMarker}), on a lane of its own with an independent random delay: the copy may overtake
   * any data queued before it, and may also come after the marker itself and after later data. With
   * it the receiver is handed a random part of the data still in transit ahead of the marker, as a
   * receiver that reads ahead of its application holds it.
   */
  EARLY_COPIES
}
