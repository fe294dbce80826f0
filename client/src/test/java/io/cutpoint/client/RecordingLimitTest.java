package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class RecordingLimitTest {

  /**
   * a -> b and c -> b; only a initiates, so c never sends a marker and b records c's channel until
   * the limit set on b's builder makes its local snapshot fail.
   */
  @Test
  void aLocalSnapshotThatRecordsMoreThanTheLimitFailsWithAClearReason() {
    Map<Long, String> failures = new ConcurrentHashMap<>();
    try (Worker b =
            Worker.builder("b")
                .incoming("a", "c")
                .stateHandler(new NoState())
                .messageHandler((f, s, p) -> {})
                .maxRecordedBytesPerSnapshot(1_000)
                .build();
        Worker a =
            Worker.builder("a")
                .outgoing("b")
                .stateHandler(new NoState())
                .messageHandler((f, s, p) -> {})
                .build();
        Worker c =
            Worker.builder("c")
                .outgoing("b")
                .stateHandler(new NoState())
                .messageHandler((f, s, p) -> {})
                .build()) {
      b.setSnapshotListener(
          new WorkerControl.LocalSnapshotListener() {
            @Override
            public void completed(io.cutpoint.client.engine.CompletedLocalSnapshot snapshot) {}

            @Override
            public void failed(long snapshotId, String reason) {
              failures.put(snapshotId, reason);
            }
          });
      b.start();
      a.updatePeers(Map.of("b", b.channelAddress()));
      c.updatePeers(Map.of("b", b.channelAddress()));
      a.start();
      c.start();
      a.startSnapshot(5);
      await().until(() -> b.counters().markersReceived() == 1);
      for (int i = 0; i < 9; i++) {
        c.send("b", new byte[100]);
      }
      await().until(() -> b.receivedCount("c") == 9);
      assertThat(failures).as("900 bytes recorded: still under the limit").isEmpty();
      for (int i = 0; i < 2; i++) {
        c.send("b", new byte[100]);
      }
      await().until(() -> failures.containsKey(5L));
      assertThat(failures.get(5L)).contains("1000");
      assertThat(b.counters().snapshotsFailed()).isEqualTo(1);
      assertThat(b.counters().snapshotsCompleted()).isZero();
    }
  }
}
