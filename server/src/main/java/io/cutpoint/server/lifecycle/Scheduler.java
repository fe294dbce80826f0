package io.cutpoint.server.lifecycle;

import java.time.Duration;

/**
 * Runs tasks later, one at a time, on a single thread. Production uses {@link ExecutorScheduler};
 * tests use a manual scheduler that runs due tasks when they advance a manual clock.
 */
public interface Scheduler {

  /** Runs {@code task} once after {@code delay}; the returned handle cancels it. */
  Cancellable schedule(Runnable task, Duration delay);

  /** Runs {@code task} as soon as possible on the scheduler's thread. */
  default void execute(Runnable task) {
    schedule(task, Duration.ZERO);
  }

  /** Cancels a scheduled task; cancelling one that already ran does nothing. */
  interface Cancellable {
    void cancel();
  }
}
