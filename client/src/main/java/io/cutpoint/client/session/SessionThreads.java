package io.cutpoint.client.session;

import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Named daemon threads, and staged shutdown: ask, wait, force; the interrupt flag survives. */
final class SessionThreads {

  private static final Logger log = LoggerFactory.getLogger(SessionThreads.class);

  private SessionThreads() {}

  /** Daemon threads called {@code name}, then {@code name-2}, {@code name-3}... */
  static ThreadFactory named(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      int i = n.incrementAndGet();
      Thread t = new Thread(r, i == 1 ? name : name + "-" + i);
      t.setDaemon(true);
      return t;
    };
  }

  /** Whether the calling thread is one of the threads whose names start with {@code prefix}. */
  static boolean current(String prefix) {
    return Thread.currentThread().getName().startsWith(prefix);
  }

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
