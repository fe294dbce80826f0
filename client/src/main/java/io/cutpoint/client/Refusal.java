package io.cutpoint.client;

/** Why the worker core ends an inbound stream; the transport maps the kind to its status. */
record Refusal(Kind kind, String description) {

  /** The reasons a stream is refused. */
  enum Kind {
    /** A newer stream of the same channel took over. */
    REPLACED,
    /** A frame of an epoch the coordinator has not announced. */
    EPOCH_NOT_ANNOUNCED,
    /** Too many frames or bytes wait to be delivered. */
    PARKING_FULL,
    /** Frames waited too long to be delivered. */
    PARKED_TOO_LONG,
    /** A position was skipped, or an item broke the snapshot protocol. */
    DATA_LOSS,
    /** An item the worker cannot read. */
    MALFORMED
  }
}
