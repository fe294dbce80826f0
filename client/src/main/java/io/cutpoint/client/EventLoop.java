package io.cutpoint.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's event thread. It runs tasks one at a time, each while holding the worker lock (which
 * readers of the engine's counters on other threads take too), so the engine and the application's
 * handlers never run concurrently. Application threads hand their sends over as tasks ({@link
 * ChannelSender#claim}); they never take the lock. When the queue runs dry it flushes the channels
 * that the tasks left with partial frames.
 */
final class EventLoop {

  private static final Logger log = LoggerFactory.getLogger(EventLoop.class);
  private static final Runnable STOP = () -> {};

  private final ReentrantLock lock = new ReentrantLock();
  private final BlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
  private final List<ChannelSender> flushWhenIdle = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stopping;
  private static final int MAX_TASKS_PER_LOCK = 64;

  EventLoop(String threadName) {
    thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  ReentrantLock lock() {
    return lock;
  }

  boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  /** Queues {@code task}; it runs on the event thread under the worker lock. */
  void execute(Runnable task) {
    queue.add(task);
  }

  /** Runs {@code task} on the event thread and waits for it (inline when already there). */
  void runAndWait(Runnable task) {
    if (inLoop()) {
      task.run();
      return;
    }
    if (!thread.isAlive() || stopping) {
      throw new IllegalStateException("the worker is not running");
    }
    Waited waited = new Waited(task);
    execute(waited);
    try {
      waited.done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** A task someone waits for; failed rather than forgotten when the loop stops first. */
  private static final class Waited implements Runnable {
    private final Runnable task;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    Waited(Runnable task) {
      this.task = task;
    }

    @Override
    public void run() {
      try {
        task.run();
        done.complete(null);
      } catch (Throwable t) {
        done.completeExceptionally(t);
      }
    }
  }

  /** Called on the event thread: flush {@code sender} once the queue is empty. */
  void flushWhenIdle(ChannelSender sender) {
    flushWhenIdle.add(sender);
  }

  /**
   * Stops the event thread after the task it is running; queued tasks are dropped (whoever waits
   * for one gets an exception). Waits up to {@code millis} for the thread to end.
   */
  void stop(long millis) {
    requestStop();
    if (!inLoop()) {
      try {
        thread.join(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    failWaiters();
  }

  /** From now on no further task starts. */
  void requestStop() {
    if (!stopping) {
      stopping = true;
      queue.add(STOP);
    }
  }

  private void failWaiters() {
    for (Runnable r; (r = queue.poll()) != null; ) {
      if (r instanceof Waited w) {
        w.done.completeExceptionally(new IllegalStateException("the worker was closed"));
      }
    }
  }

  private void run() {
    while (true) {
      Runnable task = queue.poll();
      if (task == null) {
        flushIdle();
        try {
          task = queue.poll(1, TimeUnit.DAYS);
        } catch (InterruptedException e) {
          return;
        }
        if (task == null) {
          continue;
        }
      }
      if (task == STOP || stopping) {
        failWaiters();
        return;
      }
      lock.lock();
      try {
        // Run what is queued under one acquisition (readers of the counters take the lock).
        for (int n = 0; task != null; task = ++n < MAX_TASKS_PER_LOCK ? queue.poll() : null) {
          if (task == STOP || stopping) {
            failWaiters();
            return;
          }
          runTask(task);
        }
      } finally {
        lock.unlock();
      }
    }
  }

  private void runTask(Runnable task) {
    try {
      task.run();
    } catch (Throwable t) {
      log.error("worker event thread {}: task failed", thread.getName(), t);
    }
  }

  private void flushIdle() {
    for (int i = 0; i < flushWhenIdle.size(); i++) {
      try {
        flushWhenIdle.get(i).flushIfDirty();
      } catch (RuntimeException e) {
        log.error("flushing a channel failed", e);
      }
    }
    flushWhenIdle.clear();
  }
}
