package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A message handler that throws, whatever it throws (an Error, an undeclared checked exception),
 * has consumed its message: the channel goes on with the next one, and none is lost or repeated.
 */
class FailingHandlerTest {

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
    throw (T) t;
  }

  @Test
  void anErrorOrACheckedExceptionFromTheHandlerDoesNotJamTheChannel() {
    List<Long> delivered = new CopyOnWriteArrayList<>();
    Worker a =
        Worker.builder("a")
            .outgoing(List.of("b"))
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> {})
            .build()
            .start();
    Worker b =
        Worker.builder("b")
            .incoming(List.of("a"))
            .stateHandler(new NoState())
            .messageHandler(
                (from, seq, payload) -> {
                  delivered.add(seq);
                  if (seq == 5) {
                    throw new AssertionError("an application's assertion");
                  }
                  if (seq == 9) {
                    FailingHandlerTest.<RuntimeException>sneakyThrow(
                        new java.io.IOException("undeclared"));
                  }
                })
            .build()
            .start();
    try (a;
        b) {
      Map<String, String> addresses = Map.of("a", a.channelAddress(), "b", b.channelAddress());
      a.updatePeers(addresses);
      b.updatePeers(addresses);
      for (int i = 0; i < 40; i++) {
        a.send("b", new byte[] {(byte) i});
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() >= 40);
      assertThat(delivered)
          .containsExactlyElementsOf(
              java.util.stream.LongStream.rangeClosed(1, 40).boxed().toList());
    }
  }
}
