package io.cutpoint.client;

import java.util.concurrent.Executor;

/**
 * A worker's event loop as its coordinator session sees it: tasks run one at a time, in the order
 * they were handed over, on the one thread that owns the worker's engine. The session runs its
 * stream events, commands, timers' work and uploads there, so it needs no thread of its own.
 */
public interface WorkerLoop extends Executor {

  /** Queues {@code task} for the loop (from any thread; a task from the loop runs after it). */
  @Override
  void execute(Runnable task);

  /** Whether the calling thread is the loop's. */
  boolean inLoop();
}
