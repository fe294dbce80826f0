package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.WorkerControl.LocalSnapshotListener;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.LocalSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Over gRPC, a receiver whose handlers are behind: with markers ahead (the default) it takes the
 * marker when it reads it, so its piece completes while data sent before the marker still waits for
 * the handlers, and that data is the channel's state; with markers in order the channel's state is
 * empty, since the marker waits behind that data. Both cuts verify.
 */
class MarkersAheadTest {

  private static final int MESSAGES = 3_000;

  /**
   * What one run saw: both pieces, how many messages b's handler had taken when b's completed, and
   * b's counter of markers taken ahead.
   */
  private record Run(
      LocalSnapshot a, LocalSnapshot b, long deliveredAtCompletion, long markersAhead) {}

  private static Run run(boolean markersAhead) {
    AtomicLong delivered = new AtomicLong();
    Map<String, CompletedLocalSnapshot> pieces = new ConcurrentHashMap<>();
    AtomicLong deliveredAtCompletion = new AtomicLong(-1);
    try (Worker b =
            Worker.builder("b")
                .incoming("a")
                .stateHandler(new NoState())
                .messageHandler(
                    (from, seq, payload) -> {
                      // the first message holds b for 200 ms, so a has filled its window of
                      // unacknowledged messages before b reads on, however slowly a's thread runs;
                      // then about 50 us a message
                      busy(delivered.get() == 0 ? 200_000_000 : 50_000);
                      delivered.incrementAndGet();
                    })
                .markersAhead(markersAhead)
                .build()
                .start();
        Worker a =
            Worker.builder("a")
                .outgoing("b")
                .stateHandler(new NoState())
                .messageHandler((from, seq, payload) -> {})
                .peers(Map.of("b", b.channelAddress()))
                .build()
                .start()) {
      a.setSnapshotListener(listener("a", pieces, null));
      b.setSnapshotListener(
          listener("b", pieces, () -> deliveredAtCompletion.set(delivered.get())));
      byte[] payload = new byte[64];
      for (int i = 0; i < MESSAGES; i++) {
        a.send("b", payload);
      }
      a.startSnapshot(1);
      await().atMost(Duration.ofSeconds(30)).until(() -> pieces.size() == 2);
      await().atMost(Duration.ofSeconds(30)).until(() -> delivered.get() == MESSAGES);
      return new Run(
          pieces.get("a").cut(),
          pieces.get("b").cut(),
          deliveredAtCompletion.get(),
          b.counters().markersAhead());
    }
  }

  private static LocalSnapshotListener listener(
      String worker, Map<String, CompletedLocalSnapshot> pieces, Runnable onCompleted) {
    return new LocalSnapshotListener() {
      @Override
      public void completed(CompletedLocalSnapshot snapshot) {
        if (onCompleted != null) {
          onCompleted.run();
        }
        pieces.put(worker, snapshot);
      }

      @Override
      public void failed(long snapshotId, String reason) {
        throw new AssertionError(worker + " failed snapshot " + snapshotId + ": " + reason);
      }
    };
  }

  private static void busy(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  private static Cut cut(Run r) {
    return Cut.of(1, Set.of("a", "b"), Set.of(ChannelId.of("a", "b")), List.of(r.a(), r.b()));
  }

  @Test
  void aMarkerReadAheadCompletesThePieceBeforeTheHandlersCatchUp() {
    Run r = run(true);
    System.out.println(
        "markers ahead: b took the marker after "
            + r.b().received().get("a")
            + " of "
            + MESSAGES
            + " messages; its piece completed with "
            + r.deliveredAtCompletion()
            + " handled");
    assertThat(CutVerifier.verify(cut(r))).isEmpty();
    long sent = r.a().sent().get("b");
    assertThat(sent).isEqualTo(MESSAGES);
    assertThat(r.b().received().get("a"))
        .as("messages b's handler had when the marker was taken")
        .isLessThan(sent);
    assertThat(r.b().recorded("a"))
        .as("the data queued before the marker is the channel's state")
        .hasSize((int) (sent - r.b().received().get("a")));
    assertThat(r.b().firstMarkerFrom()).isNull();
    assertThat(r.markersAhead()).as("b's counter of markers taken ahead").isEqualTo(1);
    assertThat(r.deliveredAtCompletion())
        .as("b's piece completed before its handler had taken every message sent before it")
        .isLessThan(sent);
  }

  @Test
  void aMarkerInOrderWaitsForTheHandlersAndLeavesItsChannelEmpty() {
    Run r = run(false);
    assertThat(CutVerifier.verify(cut(r))).isEmpty();
    assertThat(r.b().received().get("a")).isEqualTo(MESSAGES);
    assertThat(r.b().recorded("a")).isEmpty();
    assertThat(r.b().firstMarkerFrom()).isEqualTo("a");
    assertThat(r.markersAhead()).isZero();
    assertThat(r.deliveredAtCompletion()).isEqualTo(MESSAGES);
  }
}
