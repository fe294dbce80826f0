package io.cutpoint.client;

import java.util.List;

/**
 * One frame of an inbound channel, free of the wire format: the sender's epoch, its items in order,
 * and its size on the wire (what parking counts).
 */
record InboundFrame(long epoch, List<ChannelItem> items, int bytes) {

  InboundFrame {
    items = List.copyOf(items);
  }
}
