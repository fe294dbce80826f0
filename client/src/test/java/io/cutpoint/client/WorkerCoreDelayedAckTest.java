package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A frame that does not ask for an ack at once is acknowledged later, by one ack for every frame of
 * its channel delivered meanwhile, or at once when its channel delivered {@link
 * WorkerCore#ACK_EVERY_POSITIONS} positions since its last ack; one that asks is acknowledged at
 * once, and so is a new stream, which must learn where to resume.
 */
class WorkerCoreDelayedAckTest {

  private static final long EPOCH = 1;

  private final WorkerCore core = TwoWayCore.of((from, seq, payload) -> {}, EPOCH);
  private final InboundLink link = new InboundLink() {};

  private static InboundFrame data(long position, boolean ackNow) {
    return new InboundFrame(
        EPOCH, List.of(new ChannelItem.Data(position, position, new byte[1])), 9, ackNow);
  }

  private static List<WorkerEffect> acks(List<WorkerEffect> effects) {
    return effects.stream()
        .filter(e -> e instanceof WorkerEffect.Ack || e instanceof WorkerEffect.AckLater)
        .toList();
  }

  @Test
  void framesThatDoNotAskAreAcknowledgedTogetherWhenTheDelayEnds() {
    assertThat(acks(core.attach("a", link))).containsExactly(new WorkerEffect.Ack(link, EPOCH, 0));

    assertThat(acks(core.onFrame("a", link, data(1, false))))
        .containsExactly(new WorkerEffect.AckLater("a", WorkerCore.ACK_DELAY_NANOS));
    assertThat(acks(core.onFrame("a", link, data(2, false))))
        .as("the turn asked for covers this frame too")
        .isEmpty();
    assertThat(acks(core.onFrame("a", link, data(3, false)))).isEmpty();

    assertThat(core.ackDue("a")).containsExactly(new WorkerEffect.Ack(link, EPOCH, 3));
    assertThat(acks(core.onFrame("a", link, data(4, false))))
        .as("a new turn once the last one ran")
        .containsExactly(new WorkerEffect.AckLater("a", WorkerCore.ACK_DELAY_NANOS));
  }

  @Test
  void aChannelThatDeliveredManyPositionsWithoutAnAckIsAcknowledgedAtOnce() {
    core.attach("a", link);
    for (long p = 1; p < WorkerCore.ACK_EVERY_POSITIONS; p++) {
      assertThat(acks(core.onFrame("a", link, data(p, false))))
          .noneMatch(e -> e instanceof WorkerEffect.Ack);
    }
    long last = WorkerCore.ACK_EVERY_POSITIONS;

    assertThat(acks(core.onFrame("a", link, data(last, false))))
        .containsExactly(new WorkerEffect.Ack(link, EPOCH, last));
    assertThat(core.ackDue("a")).as("nothing is owed any more").isEmpty();
  }

  @Test
  void aFrameOfDuplicatesOwesNoAck() {
    core.attach("a", link);
    core.onFrame("a", link, data(1, true));

    assertThat(acks(core.onFrame("a", link, data(1, false)))).isEmpty();
    assertThat(core.ackDue("a")).isEmpty();
  }

  @Test
  void aFrameThatAsksIsAcknowledgedAtOnceWithTheFramesBeforeIt() {
    core.attach("a", link);
    core.onFrame("a", link, data(1, false));

    assertThat(acks(core.onFrame("a", link, data(2, true))))
        .containsExactly(new WorkerEffect.Ack(link, EPOCH, 2));
    assertThat(core.ackDue("a")).as("nothing is owed any more").isEmpty();
  }

  @Test
  void anAckOwedGoesToTheStreamThatReplacedTheOneItsFramesCameOn() {
    core.attach("a", link);
    core.onFrame("a", link, data(1, false));
    InboundLink next = new InboundLink() {};

    assertThat(acks(core.attach("a", next)))
        .as("a new stream learns at once where to resume")
        .containsExactly(new WorkerEffect.Ack(next, EPOCH, 1));
    assertThat(core.ackDue("a")).isEmpty();
    core.onFrame("a", next, data(2, false));
    assertThat(core.ackDue("a")).containsExactly(new WorkerEffect.Ack(next, EPOCH, 2));
  }

  @Test
  void aStreamThatEndedIsSentNoAck() {
    core.attach("a", link);
    core.onFrame("a", link, data(1, false));
    core.detach("a", link);

    assertThat(core.ackDue("a")).isEmpty();
  }
}
