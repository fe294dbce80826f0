package io.cutpoint.client.session;

import io.cutpoint.client.WorkerLoop;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A session's own loop when its worker has none, and staged shutdown: ask, wait, force. */
final class SessionThreads {

  private static final Logger log = LoggerFactory.getLogger(SessionThreads.class);

  private SessionThreads() {}

  /**
   * A loop of its own, for a session whose worker has none ({@link
   * io.cutpoint.client.WorkerControl#eventLoop()} null): one daemon thread called {@code name}.
   * Tasks handed over after {@link #executor shutdown} are dropped.
   */
  static OwnLoop ownLoop(String name) {
    return new OwnLoop(name);
  }

  /** One thread running a session's tasks in order. */
  static final class OwnLoop implements WorkerLoop {
    private final ExecutorService executor;
    private volatile Thread thread;

    private OwnLoop(String name) {
      this.executor =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                thread = t;
                return t;
              });
    }

    @Override
    public void execute(Runnable task) {
      try {
        executor.execute(task);
      } catch (RejectedExecutionException e) {
        log.debug("session closed, task dropped");
      }
    }

    @Override
    public boolean inLoop() {
      return Thread.currentThread() == thread;
    }

    ExecutorService executor() {
      return executor;
    }
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
