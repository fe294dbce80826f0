package io.cutpoint.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How much a worker holds back on one incoming channel. A frame is parked, not delivered, while the
 * worker is halted for a rollback, while its epoch is one the coordinator announced but the worker
 * has not entered yet, and behind frames parked before it. Past any of these bounds the stream that
 * brought the frames is refused and what it parked is dropped; its sender resends from the
 * receiver's position when it reconnects, so nothing acknowledged is lost.
 *
 * @param maxFrames frames parked at most, per channel (refused with RESOURCE_EXHAUSTED)
 * @param maxBytes serialized bytes parked at most, per channel (refused with RESOURCE_EXHAUSTED)
 * @param maxAge how long the oldest parked frame may wait (refused with DEADLINE_EXCEEDED)
 */
public record ParkingLimits(int maxFrames, long maxBytes, Duration maxAge) {

  public ParkingLimits {
    if (maxFrames < 1 || maxBytes < 1) {
      throw new IllegalArgumentException(
          "maxFrames and maxBytes must be positive, got " + maxFrames + " and " + maxBytes);
    }
    Objects.requireNonNull(maxAge, "maxAge");
    if (maxAge.isNegative() || maxAge.isZero()) {
      throw new IllegalArgumentException("maxAge must be positive, got " + maxAge);
    }
  }

  /** 64 frames, 64 MiB and 30 seconds per channel. */
  public static ParkingLimits defaults() {
    return new ParkingLimits(64, 64L << 20, Duration.ofSeconds(30));
  }
}
