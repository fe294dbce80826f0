package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.Item;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A sender asks for an ack at once ({@code Frame.ack_now}) only when it needs the room: once what
 * its channel holds unacknowledged reaches half its bound. Its receiver here is a bare channel
 * server that records each position's flag and acknowledges nothing after the stream's start, so
 * what the channel holds is exactly what it sent.
 */
class ChannelSenderAckNowTest {

  private static final int BOUND = 8;

  /** Position -> the ack_now flag of the frame that carried it. */
  private final Map<Long, Boolean> askedAt = new ConcurrentHashMap<>();

  @Test
  void framesAskForAnAckAtOnceFromHalfTheBoundOn() throws Exception {
    try (BareReceiver b =
            new BareReceiver(
                () -> {},
                (frame, acks) -> {
                  for (Item item : frame.getItemsList()) {
                    askedAt.put(item.getPosition(), frame.getAckNow());
                  }
                });
        Worker a =
            b.sender(
                ChannelOptions.defaults()
                    .withMaxUnacked(BOUND, 1 << 20)
                    .withSendTimeout(Duration.ofSeconds(30)))) {
      // one message at a time, each in a frame of its own, so each flag is that of its position
      for (long position = 1; position <= BOUND; position++) {
        a.send("b", new byte[1]);
        long p = position;
        await().atMost(Duration.ofSeconds(30)).until(() -> askedAt.containsKey(p));
      }
    }
    assertThat(List.of(1L, 2L, 3L)).allSatisfy(p -> assertThat(askedAt.get(p)).isFalse());
    assertThat(List.of(4L, 5L, 6L, 7L, 8L)).allSatisfy(p -> assertThat(askedAt.get(p)).isTrue());
  }
}
