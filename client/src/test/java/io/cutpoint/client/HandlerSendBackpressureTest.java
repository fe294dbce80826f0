package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A handler's send into a full channel never stops the worker's event loop (the loop is the
 * channel's I/O thread): the message goes past the bound and the worker stops reading its incoming
 * channels, so the overshoot stays within the frames it asked for ahead, until the channel has room
 * again.
 */
class HandlerSendBackpressureTest {

  private static final int BOUND = 10;
  private static final int ITEMS_PER_FRAME = 4;
  private static final int MESSAGES = 1_000;

  @Test
  void aFullChannelStopsReadingInsteadOfBlockingTheLoop() throws Exception {
    CountDownLatch unblock = new CountDownLatch(1);
    AtomicLong lastSeq = new AtomicLong();
    AtomicLong outOfOrder = new AtomicLong();
    AtomicReference<Worker> forwarder = new AtomicReference<>();
    ChannelOptions small =
        ChannelOptions.defaults()
            .withMaxItemsPerFrame(ITEMS_PER_FRAME)
            .withMaxUnacked(BOUND, 1 << 20)
            .withSendTimeout(Duration.ofSeconds(60));
    // c stalls in its handler, on its own event loop (a's and b's loops keep serving them).
    try (Worker c =
            Worker.builder("bp-c")
                .incoming("bp-b")
                .stateHandler(new NoState())
                .messageHandler(
                    (from, seq, payload) -> {
                      awaitQuietly(unblock);
                      if (seq != lastSeq.get() + 1) {
                        outOfOrder.incrementAndGet();
                      }
                      lastSeq.set(seq);
                    })
                .build()
                .start();
        Worker b =
            Worker.builder("bp-b")
                .incoming("bp-a")
                .outgoing("bp-c")
                .channelOptions(small)
                .peers(Map.of("bp-c", c.channelAddress()))
                .stateHandler(new NoState())
                .messageHandler((from, seq, payload) -> forwarder.get().send("bp-c", payload))
                .build();
        Worker a =
            Worker.builder("bp-a")
                .outgoing("bp-b")
                .channelOptions(ChannelOptions.defaults().withMaxItemsPerFrame(ITEMS_PER_FRAME))
                .stateHandler(new NoState())
                .messageHandler((from, seq, payload) -> {})
                .build()) {
      forwarder.set(b);
      b.start();
      a.updatePeers(Map.of("bp-b", b.channelAddress()));
      a.start();
      try {
        for (int i = 0; i < MESSAGES; i++) {
          a.send("bp-b", new byte[] {(byte) i});
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> b.maxBufferedMessages("bp-c") > BOUND);

        CountDownLatch ran = new CountDownLatch(1);
        b.execute(ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS))
            .as("b's loop runs a task while its channel to c is past its bound")
            .isTrue();
        // b reads no further: what it forwards stays within the frames it had asked for.
        int overshoot = (ChannelOptions.defaults().inboundFramesAhead() + 1) * ITEMS_PER_FRAME;
        await()
            .during(Duration.ofMillis(500))
            .atMost(Duration.ofSeconds(5))
            .until(() -> b.maxBufferedMessages("bp-c") <= BOUND + overshoot);
        assertThat(b.receivedCount("bp-a")).as("messages b took in").isLessThan(MESSAGES);

        unblock.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> lastSeq.get() == MESSAGES);
        assertThat(outOfOrder.get()).isZero();
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> a.allAcknowledged() && b.allAcknowledged());
        assertThat(b.maxBufferedMessages("bp-c")).isLessThanOrEqualTo(BOUND + overshoot);
      } finally {
        unblock.countDown();
      }
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
