package io.cutpoint.client.engine;

import io.cutpoint.cut.InTransitMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of one incoming channel for one snapshot: the data messages that arrived on it after
 * this worker recorded its local state and before the snapshot's marker on it. Open until that
 * marker arrives (or the snapshot is dropped). When an early copy of the marker overtook data, the
 * recording knows its boundary, the sender's count at its snapshot, and closes once the data
 * message with that sequence number has been recorded.
 */
final class RecordedChannel {

  final PendingLocalSnapshot owner;
  final IncomingChannel channel;
  private final List<InTransitMessage> messages = new ArrayList<>();
  private boolean open = true;

  /** The sequence number of the last message that belongs to this recording, or -1: unknown. */
  long boundary = -1;

  /** The highest sequence number recorded or, before any, the channel's count at the cut. */
  long recordedThrough;

  RecordedChannel(PendingLocalSnapshot owner, IncomingChannel channel) {
    this.owner = owner;
    this.channel = channel;
    this.recordedThrough = channel.received;
  }

  boolean isOpen() {
    return open;
  }

  void add(InTransitMessage message) {
    messages.add(message);
    recordedThrough = message.seq();
  }

  /** Stops recording; the channel no longer feeds this recording. */
  void close() {
    if (open) {
      open = false;
      channel.open.remove(this);
    }
  }

  List<InTransitMessage> messages() {
    return messages;
  }
}
