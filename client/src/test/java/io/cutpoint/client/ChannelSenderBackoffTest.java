package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A receiver that acknowledges each stream's start and then refuses what it is resent (here with
 * RESOURCE_EXHAUSTED, as gRPC refuses a frame larger than the receiver takes) is retried with a
 * growing backoff: the first ack of a stream with something to resend is no sign of health. The
 * bare channel server here records when each stream opens.
 */
class ChannelSenderBackoffTest {

  private static final Duration INITIAL = Duration.ofMillis(20);

  private final List<Long> opened = new CopyOnWriteArrayList<>();

  @Test
  void aStreamRefusedAfterItsFirstAckIsRetriedWithAGrowingBackoff() throws Exception {
    try (BareReceiver b =
            new BareReceiver(
                () -> opened.add(System.nanoTime()),
                (frame, acks) -> {
                  if (frame.getItemsCount() > 0) {
                    acks.onError(
                        Status.RESOURCE_EXHAUSTED.withDescription("too large").asException());
                  }
                });
        Worker a =
            b.sender(ChannelOptions.defaults().withReconnect(INITIAL, Duration.ofSeconds(5)))) {
      a.send("b", new byte[1]);
      await().atMost(Duration.ofSeconds(30)).until(() -> opened.size() >= 6);
    }
    // Delays of 20, 40, 80, 160 ms and more, each within the jitter: the sixth stream opens at
    // least 16 x 0.8 initial delays after the fifth. Without the growth every one is ~20 ms.
    long lastGap = opened.get(5) - opened.get(4);
    assertThat(Duration.ofNanos(lastGap))
        .isGreaterThanOrEqualTo(INITIAL.multipliedBy(16).multipliedBy(8).dividedBy(10));
  }
}
