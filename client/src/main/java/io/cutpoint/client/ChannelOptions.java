package io.cutpoint.client;

import io.cutpoint.util.Durations;
import java.time.Duration;

/**
 * Tuning of a worker's channels. {@link #defaults()} suits small messages at high rates.
 *
 * @param maxItemsPerFrame items batched into one frame at most
 * @param maxFrameBytes payload bytes batched into one frame at most (one larger message rides
 *     alone)
 * @param maxUnackedMessages data messages a channel holds unacknowledged before {@code send} waits
 * @param maxUnackedBytes payload bytes a channel holds unacknowledged before {@code send} waits
 * @param maxPayloadBytes largest payload {@code send} accepts
 * @param sendTimeout how long {@code send} waits for room (or for the end of a rollback)
 * @param linger how long a partial frame sent from outside the event thread waits for company
 * @param inboundFramesAhead frames a receiver asks for ahead of processing, per channel
 * @param reconnectInitial first delay before reopening a broken stream (doubles each failure, with
 *     +-20% jitter)
 * @param reconnectMax longest delay between attempts
 */
public record ChannelOptions(
    int maxItemsPerFrame,
    int maxFrameBytes,
    int maxUnackedMessages,
    long maxUnackedBytes,
    int maxPayloadBytes,
    Duration sendTimeout,
    Duration linger,
    int inboundFramesAhead,
    Duration reconnectInitial,
    Duration reconnectMax) {

  public ChannelOptions {
    positive(maxItemsPerFrame, "maxItemsPerFrame");
    positive(maxFrameBytes, "maxFrameBytes");
    positive(maxUnackedMessages, "maxUnackedMessages");
    positive(maxUnackedBytes, "maxUnackedBytes");
    positive(maxPayloadBytes, "maxPayloadBytes");
    positive(inboundFramesAhead, "inboundFramesAhead");
    if (maxPayloadBytes > maxUnackedBytes) {
      throw new IllegalArgumentException(
          "maxPayloadBytes ("
              + maxPayloadBytes
              + ") must not exceed maxUnackedBytes ("
              + maxUnackedBytes
              + ")");
    }
    for (Duration d : new Duration[] {sendTimeout, linger, reconnectInitial, reconnectMax}) {
      if (d.compareTo(Durations.MAX) > 0) {
        throw new IllegalArgumentException(
            "durations must be at most " + Durations.MAX + " (Long.MAX_VALUE ns), got " + d);
      }
    }
    if (sendTimeout.isNegative()
        || linger.isNegative()
        || reconnectInitial.isNegative()
        || reconnectInitial.isZero()
        || reconnectMax.compareTo(reconnectInitial) < 0) {
      throw new IllegalArgumentException(
          "durations must be non-negative, reconnectInitial > 0"
              + " and reconnectMax >= reconnectInitial");
    }
  }

  private static void positive(long v, String name) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + " must be positive, got " + v);
    }
  }

  /**
   * 256 items and 1 MiB per frame; 2,048 messages and 4 MiB unacknowledged per channel; payloads up
   * to 4 MiB; {@code send} waits up to 30 s; 200 µs linger; 8 frames asked for ahead; reconnects
   * after 20 ms doubling to 2 s.
   *
   * <p>The unacknowledged bound is also what a marker taken in order ({@code
   * Worker.Builder.markersAhead(false)}) waits behind when the receiver is the bottleneck: under
   * saturating traffic a snapshot then takes about {@code maxUnackedMessages} divided by the
   * channel's rate per hop; a marker read ahead (the default) is taken as it is read. 2,048
   * messages is eight full frames, as many as a receiver asks for ahead, which keeps one loopback
   * channel at its full rate (half the bound cost a third of the 16 B rate here); 32,768 put 8 to
   * 10 MiB in flight per snapshot of a saturated 4-worker mesh and made its p50 ten times longer.
   */
  public static ChannelOptions defaults() {
    return new ChannelOptions(
        256,
        1 << 20,
        2_048,
        4L << 20,
        4 << 20,
        Duration.ofSeconds(30),
        Duration.ofNanos(200_000),
        8,
        Duration.ofMillis(20),
        Duration.ofSeconds(2));
  }

  public ChannelOptions withMaxUnacked(int messages, long bytes) {
    return new ChannelOptions(
        maxItemsPerFrame,
        maxFrameBytes,
        messages,
        bytes,
        (int) Math.min(maxPayloadBytes, bytes),
        sendTimeout,
        linger,
        inboundFramesAhead,
        reconnectInitial,
        reconnectMax);
  }

  public ChannelOptions withSendTimeout(Duration timeout) {
    return new ChannelOptions(
        maxItemsPerFrame,
        maxFrameBytes,
        maxUnackedMessages,
        maxUnackedBytes,
        maxPayloadBytes,
        timeout,
        linger,
        inboundFramesAhead,
        reconnectInitial,
        reconnectMax);
  }

  public ChannelOptions withMaxItemsPerFrame(int items) {
    return new ChannelOptions(
        items,
        maxFrameBytes,
        maxUnackedMessages,
        maxUnackedBytes,
        maxPayloadBytes,
        sendTimeout,
        linger,
        inboundFramesAhead,
        reconnectInitial,
        reconnectMax);
  }

  public ChannelOptions withReconnect(Duration initial, Duration max) {
    return new ChannelOptions(
        maxItemsPerFrame,
        maxFrameBytes,
        maxUnackedMessages,
        maxUnackedBytes,
        maxPayloadBytes,
        sendTimeout,
        linger,
        inboundFramesAhead,
        initial,
        max);
  }
}
