package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The example of the worker SDK guide (src/site/markdown/worker-sdk.md), kept compiling here. */
class WorkerExampleTest {

  /** An application: counts the messages it receives and bounces each one back to its sender. */
  static final class Bouncer implements StateHandler, MessageHandler {
    private long received; // the state: touched only on the worker's event thread
    private Worker worker;

    @Override
    public void onMessage(String from, long seq, byte[] payload) {
      received++;
      if (received < 1_000) {
        worker.send(from, payload); // from a handler: straight through, no waiting for a lock
      }
    }

    @Override
    public byte[] capture() {
      return ByteBuffer.allocate(8).putLong(received).array();
    }

    @Override
    public void restore(byte[] state) {
      received = ByteBuffer.wrap(state).getLong();
    }
  }

  @Test
  void twoWorkersBounceMessagesAndTakeAConsistentSnapshot() {
    MeterRegistry registry = new SimpleMeterRegistry();
    List<CompletedLocalSnapshot> pieces = new CopyOnWriteArrayList<>();
    WorkerControl.LocalSnapshotListener collect =
        new WorkerControl.LocalSnapshotListener() {
          @Override
          public void completed(CompletedLocalSnapshot snapshot) {
            pieces.add(snapshot); // a coordinator session would upload it
          }

          @Override
          public void failed(long snapshotId, String reason) {
            System.err.println("snapshot " + snapshotId + " failed: " + reason);
          }
        };

    Bouncer pingApp = new Bouncer();
    Bouncer pongApp = new Bouncer();
    Worker pong =
        Worker.builder("pong")
            .listenOn("127.0.0.1", 0) // any free port
            .outgoing("ping")
            .incoming("ping")
            .stateHandler(pongApp)
            .messageHandler(pongApp)
            .meterRegistry(registry)
            .build();
    pongApp.worker = pong;
    try (pong) {
      pong.setSnapshotListener(collect);
      pong.start();
      Worker ping =
          Worker.builder("ping")
              .outgoing("pong")
              .incoming("pong")
              .stateHandler(pingApp)
              .messageHandler(pingApp)
              .peers(Map.of("pong", pong.channelAddress())) // static addresses for now
              .meterRegistry(registry)
              .build();
      pingApp.worker = ping;
      try (ping) {
        ping.setSnapshotListener(collect);
        ping.start();
        pong.updatePeers(Map.of("ping", ping.channelAddress()));

        for (int i = 0; i < 10; i++) {
          ping.send("pong", new byte[] {(byte) i}); // from any thread
        }
        await().until(() -> pong.counters().messagesReceived() >= 100);
        ping.startSnapshot(1);
        await().until(() -> pieces.size() == 2);

        Cut cut =
            Cut.of(
                1,
                Set.of("ping", "pong"),
                Set.of(ChannelId.of("ping", "pong"), ChannelId.of("pong", "ping")),
                pieces.stream().map(CompletedLocalSnapshot::cut).toList());
        assertThat(CutVerifier.verify(cut)).isEmpty();
        // Each side bounces its first 999 receipts: ping gets 999, pong gets 10 + 999.
        await()
            .until(
                () ->
                    ping.counters().messagesReceived() == 999
                        && pong.counters().messagesReceived() == 1_009);
        assertThat(registry.get("cutpoint.worker.messages.received").counter().count())
            .isEqualTo(2_008);
        assertThat(registry.get("cutpoint.worker.markers.sent").counter().count()).isEqualTo(2);
      }
    }
  }
}
