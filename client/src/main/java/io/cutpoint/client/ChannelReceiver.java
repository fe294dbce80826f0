package io.cutpoint.client;

import io.cutpoint.api.v1.Frame;
import io.cutpoint.cut.RecordedMessage;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The receiving end of one directed channel {@code from -> this worker}. Confined to the worker's
 * event thread: the live stream, the last position delivered in the current epoch, frames parked
 * until the worker may deliver them, and the recorded messages a restore queued for replay.
 */
final class ChannelReceiver {

  /** A frame that may not be delivered yet, with the stream it came on. */
  record Parked(InboundStream stream, Frame frame) {}

  final String from;
  InboundStream stream;
  long delivered;
  final ArrayDeque<Parked> parked = new ArrayDeque<>();
  List<RecordedMessage> replay = List.of();

  ChannelReceiver(String from) {
    this.from = from;
  }
}
