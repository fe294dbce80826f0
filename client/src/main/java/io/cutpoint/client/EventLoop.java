package io.cutpoint.client;

import io.grpc.netty.shaded.io.netty.channel.SingleThreadEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's event loop. It runs on the Netty event loop that carries all of the worker's channels
 * (its server's streams and its connections to peers), so the engine, the handlers and the worker's
 * gRPC callbacks share one thread: a frame read from a peer runs the core where it is read, and the
 * frames the core writes go to their connection without a queue between threads. Other threads hand
 * tasks over ({@link #execute}); they run in order, one at a time, in batches that leave the thread
 * to its I/O and to the other workers that share it.
 *
 * <p>Tasks never nest: a gRPC callback that arrives while a task of this worker runs (a request for
 * frames can deliver the next frame at once, on the same thread) is queued behind it, and so is one
 * that arrives while tasks wait, so everything this worker runs keeps its order. After each pass of
 * the Netty loop it flushes the channels that the tasks left with partial frames.
 */
final class EventLoop {

  private static final Logger log = LoggerFactory.getLogger(EventLoop.class);

  /** Tasks run per turn before the loop's thread goes back to its I/O and its other tasks. */
  private static final int TASKS_PER_TURN = 64;

  private final String name;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean turnPosted = new AtomicBoolean();
  private final Runnable turn = this::turn;
  private final Runnable flush = this::flushIdle;
  private final List<ChannelSender> flushWhenIdle = new ArrayList<>();
  private volatile io.grpc.netty.shaded.io.netty.channel.EventLoop netty;
  private volatile boolean stopping;

  /** Loop thread only: a task of this worker runs now. */
  private boolean running;

  /** Loop thread only: the flush of partial frames is posted for the end of this pass. */
  private boolean flushPosted;

  /** A loop named {@code name} (in logs); it runs once {@link #start} gives it its Netty loop. */
  EventLoop(String name) {
    this.name = name;
  }

  /** Runs from now on on {@code loop}, the Netty event loop of all the worker's channels. */
  void start(io.grpc.netty.shaded.io.netty.channel.EventLoop loop) {
    netty = loop;
    post();
  }

  /** True on the loop's thread (a thread other workers' loops may share). */
  boolean inLoop() {
    io.grpc.netty.shaded.io.netty.channel.EventLoop n = netty;
    return n != null && n.inEventLoop();
  }

  /** Queues {@code task}; it runs on the loop after the tasks queued before it. */
  void execute(Runnable task) {
    if (stopping) {
      fail(task);
      return;
    }
    queue.add(task);
    post();
  }

  /**
   * Queues {@code task} {@code delayNanos} from now, timed by the Netty loop itself (no other
   * thread wakes it); dropped if the loop stops first.
   */
  void schedule(Runnable task, long delayNanos) {
    io.grpc.netty.shaded.io.netty.channel.EventLoop n = netty;
    if (n == null || stopping) {
      return;
    }
    try {
      n.schedule(() -> execute(task), delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // the Netty loop has ended: nothing of this worker runs any more
    }
  }

  /**
   * Runs {@code task} at once when called on the loop's thread with nothing of this worker running
   * or waiting (a gRPC callback of one of its channels), otherwise queues it.
   */
  void run(Runnable task) {
    if (running || stopping || !queue.isEmpty() || !inLoop()) {
      execute(task);
      return;
    }
    running = true;
    try {
      runTask(task);
    } finally {
      running = false;
    }
  }

  /** Runs {@code task} on the loop and waits for it (inline when already there). */
  void runAndWait(Runnable task) {
    if (inLoop()) {
      task.run();
      return;
    }
    if (netty == null || stopping) {
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

  /**
   * Reads what the loop owns: on the loop, or handed to it and waited for; directly when the loop
   * does not run (not started, or stopped: nothing changes it any more).
   */
  long read(LongSupplier value) {
    if (inLoop() || netty == null || stopping) {
      return value.getAsLong();
    }
    long[] result = new long[1];
    try {
      runAndWait(() -> result[0] = value.getAsLong());
    } catch (IllegalStateException stopped) {
      return value.getAsLong();
    }
    return result[0];
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

  /** Called on the loop: flush {@code sender} at the end of this pass of the loop. */
  void flushWhenIdle(ChannelSender sender) {
    flushWhenIdle.add(sender);
    if (!flushPosted) {
      flushPosted = true;
      io.grpc.netty.shaded.io.netty.channel.EventLoop n = netty;
      if (n instanceof SingleThreadEventLoop s) {
        s.executeAfterEventLoopIteration(flush);
      } else {
        n.execute(flush);
      }
    }
  }

  /**
   * No task starts from now on; queued ones are dropped (whoever waits for one gets an exception).
   * Off the loop, waits up to {@code millis} for a task that runs to end.
   */
  void stop(long millis) {
    requestStop();
    io.grpc.netty.shaded.io.netty.channel.EventLoop n = netty;
    if (n != null && !n.inEventLoop()) {
      try {
        n.submit(() -> {}).await(millis, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RejectedExecutionException e) {
        // the Netty loop has ended: no task of this worker runs
      }
    }
    failWaiters();
  }

  /** From now on no further task starts. */
  void requestStop() {
    stopping = true;
  }

  private void post() {
    io.grpc.netty.shaded.io.netty.channel.EventLoop n = netty;
    if (n == null || queue.isEmpty() || !turnPosted.compareAndSet(false, true)) {
      return;
    }
    try {
      n.execute(turn);
    } catch (RejectedExecutionException e) {
      turnPosted.set(false);
      log.debug("{}: the Netty loop has ended; tasks dropped", name);
      failWaiters();
    }
  }

  /** On the loop: runs up to {@link #TASKS_PER_TURN} queued tasks, and posts another turn. */
  private void turn() {
    turnPosted.set(false);
    running = true;
    try {
      for (int i = 0; i < TASKS_PER_TURN; i++) {
        if (stopping) {
          failWaiters();
          return;
        }
        Runnable task = queue.poll();
        if (task == null) {
          return;
        }
        runTask(task);
      }
    } finally {
      running = false;
    }
    post();
  }

  private void failWaiters() {
    for (Runnable r; (r = queue.poll()) != null; ) {
      fail(r);
    }
  }

  private static void fail(Runnable task) {
    if (task instanceof Waited w) {
      w.done.completeExceptionally(new IllegalStateException("the worker was closed"));
    }
  }

  private void runTask(Runnable task) {
    try {
      task.run();
    } catch (Throwable t) {
      log.error("worker event loop {}: task failed", name, t);
    }
  }

  private void flushIdle() {
    flushPosted = false;
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
