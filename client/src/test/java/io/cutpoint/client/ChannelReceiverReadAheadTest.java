package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.cut.InTransitMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ChannelReceiver#dataReadAheadOf}: what a marker read ahead finds queued before it. */
class ChannelReceiverReadAheadTest {

  private static ChannelItem data(long position, long seq) {
    return new ChannelItem.Data(position, seq, new byte[] {(byte) seq});
  }

  private static InboundFrame frame(ChannelItem... items) {
    return new InboundFrame(1, List.of(items), 10, true);
  }

  private static List<Long> seqs(List<InTransitMessage> messages) {
    return messages.stream().map(InTransitMessage::seq).toList();
  }

  @Test
  void theDataBeforeTheMarkerAcrossFramesAfterWhatWasDelivered() {
    ChannelReceiver r = new ChannelReceiver("a");
    r.delivered(2); // positions 1 and 2 were delivered
    r.ready().add(frame(data(2, 2), data(3, 3))); // 2 is a duplicate after a resend
    r.ready().add(frame(new ChannelItem.Mark(4, 9, 1), data(5, 4), new ChannelItem.Mark(6, 8, 4)));
    assertThat(seqs(r.dataReadAheadOf(4))).containsExactly(3L);
    assertThat(seqs(r.dataReadAheadOf(6))).as("markers take positions").containsExactly(3L, 4L);
  }

  @Test
  void aGapAnItemThatIsNeitherOrABadNumberLeavesTheMarkerToItsTurn() {
    ChannelReceiver gap = new ChannelReceiver("a");
    gap.ready().add(frame(data(1, 1), data(3, 2), new ChannelItem.Mark(4, 9, 2)));
    assertThat(gap.dataReadAheadOf(4)).isNull();

    ChannelReceiver malformed = new ChannelReceiver("a");
    malformed.ready().add(frame(new ChannelItem.Malformed(1), new ChannelItem.Mark(2, 9, 0)));
    assertThat(malformed.dataReadAheadOf(2)).isNull();

    ChannelReceiver unnumbered = new ChannelReceiver("a");
    unnumbered.ready().add(frame(data(1, -6), new ChannelItem.Mark(2, 9, 1)));
    assertThat(unnumbered.dataReadAheadOf(2)).isNull();

    ChannelReceiver absent = new ChannelReceiver("a");
    absent.ready().add(frame(data(1, 1)));
    assertThat(absent.dataReadAheadOf(5)).as("a marker not among the ready frames").isNull();
  }
}
