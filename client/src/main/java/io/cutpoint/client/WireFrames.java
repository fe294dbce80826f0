package io.cutpoint.client;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Translates a wire {@link Frame} into the worker core's {@link InboundFrame}. */
final class WireFrames {

  private WireFrames() {}

  static InboundFrame toDomain(Frame frame) {
    List<ChannelItem> items = new ArrayList<>(frame.getItemsCount());
    for (int i = 0, n = frame.getItemsCount(); i < n; i++) {
      items.add(toDomain(frame.getItems(i)));
    }
    return new InboundFrame(frame.getEpoch(), items, frame.getSerializedSize(), frame.getAckNow());
  }

  static ChannelItem toDomain(Item item) {
    return switch (item.getKindCase()) {
      case DATA ->
          new ChannelItem.Data(
              item.getPosition(), item.getData().getSeq(), take(item.getData().getPayload()));
      case MARKER ->
          new ChannelItem.Mark(
              item.getPosition(),
              item.getMarker().getSnapshotId(),
              item.getMarker().getSentCount());
      case KIND_NOT_SET -> new ChannelItem.Malformed(item.getPosition());
    };
  }

  /**
   * The bytes of a payload just parsed from a frame that is dropped after this translation: the
   * parser copied them out of the transport's buffer into an array of their own, which is taken as
   * it is rather than copied again. A payload held any other way (a slice, a buffer) is copied.
   */
  static byte[] take(ByteString payload) {
    Taken taken = new Taken();
    try {
      UnsafeByteOperations.unsafeWriteTo(payload, taken);
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e); // Taken throws none
    }
    return taken.bytes != null && taken.bytes.length == payload.size()
        ? taken.bytes
        : payload.toByteArray();
  }

  /** Keeps the array a {@link ByteString} hands over whole; anything else is left to a copy. */
  private static final class Taken extends ByteOutput {
    private byte[] bytes;
    private boolean partial;

    @Override
    public void writeLazy(byte[] value, int offset, int length) {
      if (bytes == null && !partial && offset == 0 && length == value.length) {
        bytes = value;
      } else {
        partial();
      }
    }

    @Override
    public void write(byte value) {
      partial();
    }

    @Override
    public void write(byte[] value, int offset, int length) {
      partial();
    }

    @Override
    public void write(ByteBuffer value) {
      partial();
    }

    @Override
    public void writeLazy(ByteBuffer value) {
      partial();
    }

    /** The payload comes in pieces or in a buffer: no array of its own to take. */
    private void partial() {
      partial = true;
      bytes = null;
    }
  }
}
