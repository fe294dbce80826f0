package io.cutpoint.server.lifecycle;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Runs tasks later, one at a time, on a single thread: the coordinator's event loop. Production
 * uses {@link ExecutorScheduler} (the {@code cutpoint-coordinator} thread); tests use a manual
 * scheduler that runs due tasks on the test's thread when they advance a manual clock.
 */
public interface Scheduler {

  /** Runs {@code task} once after {@code delay}; the returned handle cancels it. */
  Cancellable schedule(Runnable task, Duration delay);

  /** Runs {@code task} as soon as possible on the scheduler's thread. */
  default void execute(Runnable task) {
    schedule(task, Duration.ZERO);
  }

  /**
   * True on the scheduler's own thread. A manual scheduler has no thread of its own: the test that
   * drives it is the loop, so it answers true.
   */
  default boolean inLoop() {
    return true;
  }

  /**
   * Throws unless called on the scheduler's thread: the state {@code owner} keeps belongs to the
   * loop, and a call from elsewhere is a bug.
   */
  default void checkInLoop(String owner) {
    if (!inLoop()) {
      throw new IllegalStateException(
          owner
              + " runs on the coordinator loop, not on thread "
              + Thread.currentThread().getName());
    }
  }

  /**
   * Runs {@code body} on the scheduler's thread and completes with its value (at once when called
   * there). The future completes on the scheduler's thread.
   */
  default <T> CompletableFuture<T> call(Supplier<T> body) {
    if (inLoop()) {
      try {
        return CompletableFuture.completedFuture(body.get());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    execute(
        () -> {
          try {
            result.complete(body.get());
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  /**
   * Runs {@code body} on the scheduler's thread and completes as the future it returns does: for an
   * event whose answer comes from a later event (a store write's result).
   */
  default <T> CompletableFuture<T> callAsync(Supplier<CompletableFuture<T>> body) {
    CompletableFuture<T> result = new CompletableFuture<>();
    var unused =
        call(() -> {
              var unusedAnswer =
                  body.get()
                      .whenComplete(
                          (value, error) -> {
                            if (error == null) {
                              result.complete(value);
                            } else {
                              result.completeExceptionally(error);
                            }
                          });
              return Boolean.TRUE;
            })
            .whenComplete(
                (ignored, error) -> {
                  if (error != null) {
                    result.completeExceptionally(error);
                  }
                });
    return result;
  }

  /** Cancels a scheduled task; cancelling one that already ran does nothing. */
  interface Cancellable {
    void cancel();
  }
}
