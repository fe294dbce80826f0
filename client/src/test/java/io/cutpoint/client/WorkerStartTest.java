package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a worker's builder and start refuse, and say, before anything half-works. */
class WorkerStartTest {

  private static Worker.Builder builder() {
    return Worker.builder("w")
        .incoming(List.of("a"))
        .stateHandler(new NoState())
        .messageHandler((from, seq, payload) -> {});
  }

  /** Its event loop stopped for good: started again, it would bind and then drop every task. */
  @Test
  void aWorkerWhoseStartFailedRefusesToStartAgain() throws Exception {
    try (ServerSocket busy = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      Worker w = builder().listenOn("127.0.0.1", busy.getLocalPort()).build();
      assertThatThrownBy(w::start)
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("build a new worker to try again");
      busy.close();
      assertThatThrownBy(w::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("its start failed: build a new worker");
      w.close();
    }
  }

  @Test
  void aNegativeInitialEpochIsRefused() {
    assertThatThrownBy(() -> builder().initialEpoch(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("initialEpoch must be at least 0, got -1");
    assertThat(builder().initialEpoch(0)).isNotNull();
  }
}
