package io.cutpoint.client;

/**
 * One item of an inbound channel frame, as the worker core sees it: a data message, a marker, or
 * something that is neither (refused). {@code position} is the item's transport position in the
 * channel's current epoch (1-based, contiguous); resends repeat positions.
 */
sealed interface ChannelItem {

  long position();

  /** Data message {@code seq} of the channel (the payload is handed over, never compared). */
  @SuppressWarnings("ArrayRecordComponent")
  record Data(long position, long seq, byte[] payload) implements ChannelItem {}

  /** A marker of {@code snapshotId}; {@code sentCount} is what the sender had sent before it. */
  record Mark(long position, long snapshotId, long sentCount) implements ChannelItem {}

  /** An item that carries neither data nor a marker. */
  record Malformed(long position) implements ChannelItem {}
}
