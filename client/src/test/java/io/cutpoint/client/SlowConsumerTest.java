package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SlowConsumerTest {

  private static final int LIMIT = 1_000;

  @Test
  void aStalledReceiverMakesSendWaitThenTimeOutWithBufferedMessagesUnderTheBound()
      throws Exception {
    CountDownLatch unblock = new CountDownLatch(1);
    AtomicLong lastSeq = new AtomicLong();
    AtomicLong outOfOrder = new AtomicLong();
    ChannelOptions options =
        ChannelOptions.defaults()
            .withMaxUnacked(LIMIT, 1 << 20)
            .withSendTimeout(Duration.ofMillis(300));
    Worker b =
        Worker.builder("b")
            .incoming("a")
            .stateHandler(new NoState())
            .messageHandler(
                (from, seq, payload) -> {
                  try {
                    unblock.await(); // a consumer that stalls until the test lets it go
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  if (seq != lastSeq.get() + 1) {
                    outOfOrder.incrementAndGet();
                  }
                  lastSeq.set(seq);
                })
            .build()
            .start();
    try (Worker a =
        Worker.builder("a")
            .outgoing("b")
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> {})
            .channelOptions(options)
            .peers(Map.of("b", b.channelAddress()))
            .build()
            .start()) {
      byte[] payload = new byte[100];
      long sent = 0;
      long started = System.nanoTime();
      SendTimeoutException timeout = null;
      while (timeout == null && sent < 1_000_000) {
        try {
          a.send("b", payload);
          sent++;
        } catch (SendTimeoutException e) {
          timeout = e;
        }
      }
      long waitedMillis = (System.nanoTime() - started) / 1_000_000;
      assertThat(timeout).as("send gave up on the stalled receiver").isNotNull();
      assertThat(timeout).hasMessageContaining("unacknowledged").hasMessageContaining("a->b");
      assertThat(waitedMillis).as("send waited for the timeout").isGreaterThanOrEqualTo(300);
      assertThat(a.maxBufferedMessages("b"))
          .as("messages a ever held for b")
          .isLessThanOrEqualTo(LIMIT);
      assertThat(a.bufferedMessages("b")).isEqualTo(LIMIT);
      // What b took in before stalling is bounded by its few requested frames and HTTP/2's window.
      assertThat(sent).as("messages sent before the timeout").isLessThan(LIMIT + 60_000);

      unblock.countDown();
      int retries = 0;
      for (int i = 0; i < 10_000; i++) {
        try {
          a.send("b", payload);
          sent++;
        } catch (SendTimeoutException e) {
          i--; // b is still working through its backlog; the message took no number, send again
          assertThat(++retries).as("sends that timed out after b moved again").isLessThan(100);
        }
      }
      long total = sent;
      await().atMost(Duration.ofSeconds(20)).until(() -> lastSeq.get() == total);
      assertThat(outOfOrder.get()).isZero();
      assertThat(a.maxBufferedMessages("b")).isLessThanOrEqualTo(LIMIT);
      await().atMost(Duration.ofSeconds(5)).until(a::allAcknowledged);
    } finally {
      unblock.countDown();
      b.close();
    }
  }

  @Test
  void payloadsLargerThanTheLimitAndUndeclaredPeersAreRefusedClearly() {
    try (Worker a =
        Worker.builder("a")
            .outgoing("b")
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> {})
            .channelOptions(ChannelOptions.defaults().withMaxUnacked(10, 1_000))
            .build()
            .start()) {
      assertThatThrownBy(() -> a.send("b", new byte[1_001]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("exceeds the limit");
      assertThatThrownBy(() -> a.send("c", new byte[1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no channel to 'c'");
    }
  }

  @Test
  void durationsBeyondLongNanosecondsAreRefusedUpFront() {
    // they were taken, and the first send that had to wait threw an ArithmeticException
    assertThatThrownBy(
            () -> ChannelOptions.defaults().withSendTimeout(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most");
  }
}
