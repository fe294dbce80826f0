package io.cutpoint.server.lifecycle;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Scheduler} on one daemon thread: the coordinator's event loop ({@code
 * cutpoint-coordinator}) and the store executor ({@code cutpoint-store}) are each one. Tasks that
 * throw are logged, never lost silently; tasks posted after {@link #close()} are dropped (a {@link
 * #call} then fails).
 */
public final class ExecutorScheduler implements Scheduler, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ExecutorScheduler.class);
  private final ScheduledExecutorService executor;
  private volatile Thread thread;

  public ExecutorScheduler(String threadName) {
    executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              thread = t;
              return t;
            });
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    if (executor.isShutdown()) {
      return () -> {};
    }
    try {
      ScheduledFuture<?> f =
          executor.schedule(
              () -> {
                try {
                  task.run();
                } catch (RuntimeException e) {
                  log.error("scheduled task failed", e);
                }
              },
              Math.max(0, delay.toNanos()),
              TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    } catch (RejectedExecutionException e) {
      return () -> {};
    }
  }

  @Override
  public void execute(Runnable task) {
    try {
      executor.execute(
          () -> {
            try {
              task.run();
            } catch (RuntimeException e) {
              log.error("task failed", e);
            }
          });
    } catch (RejectedExecutionException e) {
      log.debug("task dropped: {} is closed", thread == null ? "the executor" : thread.getName());
    }
  }

  @Override
  public boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  @Override
  public <T> CompletableFuture<T> call(Supplier<T> body) {
    if (inLoop()) {
      return Scheduler.super.call(body);
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      executor.execute(
          () -> {
            try {
              result.complete(body.get());
            } catch (RuntimeException e) {
              result.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new RejectedExecutionException("the coordinator is stopping"));
    }
    return result;
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
