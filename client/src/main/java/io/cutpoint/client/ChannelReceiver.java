package io.cutpoint.client;

import io.cutpoint.api.v1.Frame;
import io.cutpoint.cut.RecordedMessage;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The receiving end of one directed channel {@code from -> this worker}. Confined to the worker's
 * event thread: the live stream, the last position delivered in the current epoch, frames parked
 * until the worker may deliver them (all of them from the live stream), and the recorded messages
 * a restore queued for replay.
 */
final class ChannelReceiver {

  /** A frame that may not be delivered yet, its serialized size, and when it was parked. */
  record Parked(Frame frame, int bytes, long parkedAtNanos) {}

  final String from;
  InboundStream stream;
  long delivered;
  private final ArrayDeque<Parked> parked = new ArrayDeque<>();
  private long parkedBytes;
  List<RecordedMessage> replay = List.of();
  long lastRefusalLoggedNanos = Long.MIN_VALUE / 2;

  ChannelReceiver(String from) {
    this.from = from;
  }

  boolean hasParked() {
    return !parked.isEmpty();
  }

  int parkedFrames() {
    return parked.size();
  }

  long parkedBytes() {
    return parkedBytes;
  }

  /** The oldest parked frame, or null. */
  Parked oldestParked() {
    return parked.peek();
  }

  void park(Parked p) {
    parked.add(p);
    parkedBytes += p.bytes();
  }

  Parked takeParked() {
    Parked p = parked.poll();
    if (p != null) {
      parkedBytes -= p.bytes();
    }
    return p;
  }

  void dropParked() {
    parked.clear();
    parkedBytes = 0;
  }
}
