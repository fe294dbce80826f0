package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * The process's shared threads are held once per started worker and let go once: a worker that
 * could not listen, and is then closed, must not let go twice, or the last live worker's I/O
 * threads would be stopped under it.
 */
class SharedThreadsTest {

  @Test
  void aWorkerThatCouldNotListenLetsGoOfTheSharedThreadsOnlyOnce() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Worker live =
            Worker.builder("live")
                .stateHandler(new NoState())
                .messageHandler((f, s, p) -> {})
                .build()
                .start()) {
      int before = SharedThreads.holders();
      Worker late =
          Worker.builder("late")
              .listenOn("127.0.0.1", taken.getLocalPort())
              .stateHandler(new NoState())
              .messageHandler((f, s, p) -> {})
              .build();
      assertThatThrownBy(late::start).isInstanceOf(UncheckedIOException.class);
      late.close();
      assertThat(SharedThreads.holders())
          .as("holders after the failed start and its close")
          .isEqualTo(before);
      assertThat(live.channelAddress()).isNotEmpty();
    }
  }
}
