package io.cutpoint.client;

import io.cutpoint.cut.InTransitMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The receiving end of one directed channel {@code from -> this worker}, as the worker core keeps
 * it: the live stream, the last position delivered in the current epoch, frames read ahead of the
 * application and waiting for their turn, frames parked until the worker may deliver them (all of
 * them from the live stream), and the recorded messages a restore queued for replay. Confined to
 * the core's thread.
 */
final class ChannelReceiver {

  /** A frame that may not be delivered yet, and when it was parked. */
  record Parked(InboundFrame frame, long parkedAtNanos) {}

  private final String from;
  private InboundLink stream;
  private long delivered;
  private final ArrayDeque<InboundFrame> ready = new ArrayDeque<>();
  private boolean deliveryPosted;
  private long unacked;
  private boolean ackPosted;
  private final ArrayDeque<Parked> parked = new ArrayDeque<>();
  private long parkedBytes;
  private List<InTransitMessage> replay = List.of();
  private long lastRefusalLoggedNanos = Long.MIN_VALUE / 2;

  ChannelReceiver(String from) {
    this.from = from;
  }

  String from() {
    return from;
  }

  /** The live stream, or null. */
  InboundLink stream() {
    return stream;
  }

  void setStream(InboundLink stream) {
    this.stream = stream;
  }

  /** The last position delivered in the current epoch (0 before the first). */
  long delivered() {
    return delivered;
  }

  void delivered(long position) {
    this.delivered = position;
  }

  /** A new epoch: positions start again, nothing is queued for replay, no ack is owed. */
  void startEpoch() {
    delivered = 0;
    replay = List.of();
    unacked = 0;
  }

  /** Positions delivered since the last ack (0: none is owed). */
  long unacked() {
    return unacked;
  }

  void unacked(long positions) {
    this.unacked = positions;
  }

  /** Whether a turn to send the owed ack later is posted. */
  boolean ackPosted() {
    return ackPosted;
  }

  void ackPosted(boolean posted) {
    this.ackPosted = posted;
  }

  /** The recorded messages a restore queued, handed out once. */
  List<InTransitMessage> takeReplay() {
    List<InTransitMessage> r = replay;
    replay = List.of();
    return r;
  }

  void queueReplay(List<InTransitMessage> messages) {
    replay = List.copyOf(messages);
  }

  /** True when a refusal may be logged at WARN now (at most once per {@code intervalNanos}). */
  boolean mayLogRefusal(long now, long intervalNanos) {
    if (now - lastRefusalLoggedNanos >= intervalNanos) {
      lastRefusalLoggedNanos = now;
      return true;
    }
    return false;
  }

  /** Frames read ahead, to be delivered in order, oldest first (a live view). */
  ArrayDeque<InboundFrame> ready() {
    return ready;
  }

  /**
   * The data messages in the ready frames ahead of position {@code markerPosition}, after what was
   * delivered, in order: what a marker read ahead at that position finds at hand. Null when the
   * positions before it have a gap, an item that is neither data nor a marker, or a data item
   * numbered below 1 (their turn in order refuses the stream).
   */
  List<InTransitMessage> dataReadAheadOf(long markerPosition) {
    List<InTransitMessage> atHand = new ArrayList<>();
    long next = delivered + 1;
    for (InboundFrame f : ready) {
      for (ChannelItem item : f.items()) {
        long position = item.position();
        if (position < next) {
          continue; // a duplicate after a resend
        }
        if (position == markerPosition) {
          return atHand;
        }
        if (position != next || item instanceof ChannelItem.Malformed) {
          return null;
        }
        if (item instanceof ChannelItem.Data d) {
          if (d.seq() < 1) {
            return null; // no sequence number a sender gives: its turn refuses it
          }
          atHand.add(new InTransitMessage(d.seq(), d.payload()));
        }
        next++;
      }
    }
    return null;
  }

  /** Whether a turn to deliver the next ready frame is posted. */
  boolean deliveryPosted() {
    return deliveryPosted;
  }

  void deliveryPosted(boolean posted) {
    this.deliveryPosted = posted;
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
    parkedBytes += p.frame().bytes();
  }

  Parked takeParked() {
    Parked p = parked.poll();
    if (p != null) {
      parkedBytes -= p.frame().bytes();
    }
    return p;
  }

  /** Drops the parked and the ready frames (their sender resends them on its next stream). */
  void dropFrames() {
    parked.clear();
    parkedBytes = 0;
    ready.clear();
  }
}
