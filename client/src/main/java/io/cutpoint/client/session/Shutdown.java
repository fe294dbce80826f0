package io.cutpoint.client.session;

import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Staged shutdown: ask, wait, force; the interrupt flag survives. */
final class Shutdown {

  private static final Logger log = LoggerFactory.getLogger(Shutdown.class);

  private Shutdown() {}

  static void executor(ExecutorService executor, Duration wait, String name) {
    executor.shutdown();
    try {
      if (!executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        executor.shutdownNow();
        if (!executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
          log.warn("session {} thread did not stop within {}", name, wait);
        }
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  static void channel(ManagedChannel channel, Duration wait) {
    channel.shutdown();
    try {
      if (!channel.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        channel.shutdownNow();
        channel.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
