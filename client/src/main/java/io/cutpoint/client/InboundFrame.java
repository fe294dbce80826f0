package io.cutpoint.client;

import java.util.List;

/**
 * One frame of an inbound channel, free of the wire format: the sender's epoch, its items in order,
 * its size on the wire (what parking counts), and whether its sender asked for an ack at once
 * ({@code Frame.ack_now}; otherwise the core may acknowledge it later, with the frames that
 * follow).
 */
record InboundFrame(long epoch, List<ChannelItem> items, int bytes, boolean ackNow) {

  InboundFrame {
    items = List.copyOf(items);
  }
}
