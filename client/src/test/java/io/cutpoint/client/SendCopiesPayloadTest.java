package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Worker#send} copies the payload: the frame that carries it wraps the worker's copy, so an
 * application that overwrites its array right after {@code send} returns, from its own thread or
 * from the event loop, still has the bytes it sent delivered.
 */
class SendCopiesPayloadTest {

  private final List<String> delivered = new CopyOnWriteArrayList<>();
  private Worker a;
  private Worker b;

  @BeforeEach
  void startTwoWorkers() {
    a =
        Worker.builder("a")
            .outgoing(List.of("b"))
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> {})
            .build()
            .start();
    b =
        Worker.builder("b")
            .incoming(List.of("a"))
            .stateHandler(new NoState())
            .messageHandler(
                (from, seq, payload) -> delivered.add(new String(payload, StandardCharsets.UTF_8)))
            .build()
            .start();
    Map<String, String> addresses = Map.of("a", a.channelAddress(), "b", b.channelAddress());
    a.updatePeers(addresses);
    b.updatePeers(addresses);
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  @Test
  void anArrayOverwrittenAfterAnApplicationThreadsSendIsDeliveredAsSent() {
    byte[] payload = new byte[8];
    for (int i = 0; i < 200; i++) {
      byte[] text = String.format("app-%04d", i).getBytes(StandardCharsets.UTF_8);
      System.arraycopy(text, 0, payload, 0, 8);
      a.send("b", payload);
      payload[0] = 'X'; // the application reuses its array at once
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == 200);
    for (int i = 0; i < 200; i++) {
      assertThat(delivered.get(i)).isEqualTo(String.format("app-%04d", i));
    }
  }

  @Test
  void anArrayOverwrittenAfterASendOnTheEventLoopIsDeliveredAsSent() {
    a.execute(
        () -> {
          byte[] payload = "loop-one".getBytes(StandardCharsets.UTF_8);
          a.send("b", payload);
          // the frame is written only after this task: without the copy it would carry these bytes
          System.arraycopy("XXXXXXXX".getBytes(StandardCharsets.UTF_8), 0, payload, 0, 8);
        });
    await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == 1);
    assertThat(delivered).containsExactly("loop-one");
  }
}
