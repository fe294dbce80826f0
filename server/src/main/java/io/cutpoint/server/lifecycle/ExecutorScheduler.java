package io.cutpoint.server.lifecycle;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A {@link Scheduler} on one daemon thread. Tasks that throw are logged, never lost silently. */
public final class ExecutorScheduler implements Scheduler, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ExecutorScheduler.class);
  private final ScheduledExecutorService executor;

  public ExecutorScheduler(String threadName) {
    executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    if (executor.isShutdown()) {
      return () -> {};
    }
    try {
      ScheduledFuture<?> f = executor.schedule(() -> {
        try {
          task.run();
        } catch (RuntimeException e) {
          log.error("scheduled task failed", e);
        }
      }, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return () -> {};
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
