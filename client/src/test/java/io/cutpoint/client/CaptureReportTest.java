package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.WorkerControl.LocalSnapshotListener;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A worker tells its snapshot listener (the coordinator session) that it captured its state as soon
 * as it did, ahead of the completed piece, so that the session can cut the state meanwhile.
 */
class CaptureReportTest {

  private static final class Named implements StateHandler {
    private final byte[] state;

    Named(String name) {
      this.state = name.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] capture() {
      return state;
    }

    @Override
    public void restore(byte[] restored) {}
  }

  @Test
  void theInitiatorReportsItsCaptureBeforeItsMarkerComesBack() {
    List<String> heard = new CopyOnWriteArrayList<>();
    try (Worker b =
            Worker.builder("b")
                .incoming("a")
                .outgoing("a")
                .stateHandler(new Named("b's state"))
                .messageHandler((from, seq, payload) -> {})
                .build()
                .start();
        Worker a =
            Worker.builder("a")
                .incoming("b")
                .outgoing("b")
                .stateHandler(new Named("a's state"))
                .messageHandler((from, seq, payload) -> {})
                .peers(Map.of("b", b.channelAddress()))
                .build()
                .start()) {
      b.updatePeers(Map.of("a", a.channelAddress()));
      a.setSnapshotListener(
          new LocalSnapshotListener() {
            @Override
            public void captured(long snapshotId, CapturedState state) {
              heard.add(
                  "captured "
                      + snapshotId
                      + ": "
                      + new String(state.state(), StandardCharsets.UTF_8));
            }

            @Override
            public void completed(CompletedLocalSnapshot snapshot) {
              heard.add("completed " + snapshot.cut().snapshotId());
            }

            @Override
            public void failed(long snapshotId, String reason) {
              heard.add("failed " + snapshotId + ": " + reason);
            }
          });

      a.startSnapshot(4);

      await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == 2);
      assertThat(heard).containsExactly("captured 4: a's state", "completed 4");
    }
  }

  @Test
  void aSnapshotAbortedAfterItsCaptureIsReportedDropped() {
    List<String> heard = new CopyOnWriteArrayList<>();
    try (Worker a =
        Worker.builder("a")
            .incoming("b") // whose marker never comes: the snapshot waits for it
            .stateHandler(new Named("a's state"))
            .messageHandler((from, seq, payload) -> {})
            .build()
            .start()) {
      a.setSnapshotListener(
          new LocalSnapshotListener() {
            @Override
            public void captured(long snapshotId, CapturedState state) {
              heard.add("captured " + snapshotId);
            }

            @Override
            public void dropped(long snapshotId) {
              heard.add("dropped " + snapshotId);
            }

            @Override
            public void completed(CompletedLocalSnapshot snapshot) {
              heard.add("completed " + snapshot.cut().snapshotId());
            }

            @Override
            public void failed(long snapshotId, String reason) {
              heard.add("failed " + snapshotId);
            }
          });

      a.startSnapshot(5);
      await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == 1);
      a.abortSnapshot(5);

      await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == 2);
      assertThat(heard).containsExactly("captured 5", "dropped 5");
    }
  }
}
