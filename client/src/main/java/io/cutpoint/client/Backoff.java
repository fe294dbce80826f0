package io.cutpoint.client;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Reconnect delays: exponential (factor 2) from {@code initial}, capped at {@code max}, with +-20%
 * jitter so that workers (or channels) cut off together do not reconnect together. The one backoff
 * of the SDK: the coordinator session and every channel sender use it. Pure logic: the random
 * source is injected. Not thread-safe; its owner uses it from one thread or under its lock.
 */
public final class Backoff {

  public static final double JITTER = 0.2;

  private final long initialNanos;
  private final long maxNanos;
  private final DoubleSupplier random;
  private long nextNanos;
  private int attempts;

  /**
   * @param random uniform values in [0, 1)
   */
  public Backoff(Duration initial, Duration max, DoubleSupplier random) {
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("initial backoff must be positive, got " + initial);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("max backoff " + max + " is below initial " + initial);
    }
    this.initialNanos = initial.toNanos();
    this.maxNanos = max.toNanos();
    this.random = random;
    this.nextNanos = initialNanos;
  }

  /** The delay before the next attempt; each call doubles the base delay up to the cap. */
  public Duration next() {
    long base = nextNanos;
    nextNanos = base > maxNanos / 2 ? maxNanos : Math.min(maxNanos, base * 2);
    attempts++;
    double factor = 1 + JITTER * (2 * random.getAsDouble() - 1);
    long jittered = (long) (base * factor);
    return Duration.ofNanos(Math.max(1, Math.min(maxNanos, jittered)));
  }

  /** After a successful join: the next failure waits {@code initial} again. */
  public void reset() {
    nextNanos = initialNanos;
    attempts = 0;
  }

  /** Failed attempts since the last reset. */
  public int attempts() {
    return attempts;
  }
}
