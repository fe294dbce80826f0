package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.api.v1.Marker;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** A wire frame's translation, and the payloads it hands over without a second copy. */
class WireFramesTest {

  private static Frame frame() {
    return Frame.newBuilder()
        .setEpoch(3)
        .addItems(
            Item.newBuilder()
                .setPosition(1)
                .setData(
                    DataMessage.newBuilder()
                        .setSeq(7)
                        .setPayload(ByteString.copyFromUtf8("seven"))))
        .addItems(
            Item.newBuilder()
                .setPosition(2)
                .setMarker(Marker.newBuilder().setSnapshotId(9).setSentCount(7)))
        .addItems(Item.newBuilder().setPosition(3))
        .build();
  }

  @Test
  void aFrameBecomesItsItemsInOrder() throws Exception {
    Frame parsed = Frame.parseFrom(new ByteArrayInputStream(frame().toByteArray()));
    InboundFrame f = WireFrames.toDomain(parsed);
    assertThat(f.epoch()).isEqualTo(3);
    assertThat(f.bytes()).isEqualTo(parsed.getSerializedSize());
    assertThat(f.items()).hasSize(3);
    ChannelItem.Data data = (ChannelItem.Data) f.items().get(0);
    assertThat(data.position()).isEqualTo(1);
    assertThat(data.seq()).isEqualTo(7);
    assertThat(new String(data.payload(), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("seven");
    assertThat(f.items().get(1)).isEqualTo(new ChannelItem.Mark(2, 9, 7));
    assertThat(f.items().get(2)).isEqualTo(new ChannelItem.Malformed(3));
  }

  @Test
  void aParsedPayloadIsTakenAsTheArrayTheParserMade() throws Exception {
    Frame parsed = Frame.parseFrom(frame().toByteArray());
    ByteString payload = parsed.getItems(0).getData().getPayload();
    byte[] first = WireFrames.take(payload);
    assertThat(first).isEqualTo("seven".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(WireFrames.take(payload)).as("no copy: the same array").isSameAs(first);
  }

  @Test
  void aPayloadThatIsPartOfALargerArrayOrABufferIsCopied() {
    ByteString whole = ByteString.copyFromUtf8("0123456789");
    ByteString slice = whole.substring(2, 5);
    byte[] taken = WireFrames.take(slice);
    assertThat(taken).isEqualTo("234".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(WireFrames.take(slice)).isNotSameAs(taken);

    ByteString buffer = UnsafeByteOperations.unsafeWrap(ByteBuffer.wrap("abc".getBytes()));
    assertThat(WireFrames.take(buffer)).isEqualTo("abc".getBytes());

    ByteString rope = ByteString.copyFromUtf8("x".repeat(200)).concat(whole);
    assertThat(WireFrames.take(rope)).isEqualTo(rope.toByteArray());
    assertThat(WireFrames.take(ByteString.EMPTY)).isEmpty();
  }
}
