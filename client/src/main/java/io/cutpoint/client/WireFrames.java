package io.cutpoint.client;

import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
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
    return new InboundFrame(frame.getEpoch(), items, frame.getSerializedSize());
  }

  static ChannelItem toDomain(Item item) {
    return switch (item.getKindCase()) {
      case DATA ->
          new ChannelItem.Data(
              item.getPosition(),
              item.getData().getSeq(),
              item.getData().getPayload().toByteArray());
      case MARKER ->
          new ChannelItem.Mark(
              item.getPosition(),
              item.getMarker().getSnapshotId(),
              item.getMarker().getSentCount());
      case KIND_NOT_SET -> new ChannelItem.Malformed(item.getPosition());
    };
  }
}
