package io.cutpoint.client;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.netty.shaded.io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads every worker of a process shares: one timer ({@code cutpoint-timer}) for linger
 * flushes, reconnects, parking sweeps and the coordinator sessions' heartbeats, join timeouts and
 * reconnect delays, and one Netty event loop group ({@code cutpoint-io}, one thread per core, each
 * started when first used) for the workers built with a shared event loop: such a worker takes one
 * of its loops for its event loop and all of its channels; and, once a worker uploads a state in
 * content-addressed chunks, a pool that cuts and hashes them ({@code cutpoint-chunks-N}). Held
 * while any worker is started (or a session open); the last holder to let go stops them, so a
 * process without workers has none.
 */
public final class SharedThreads {

  private static SharedThreads current;
  private static int users;

  private final ScheduledExecutorService timer;
  private final EventLoopGroup io;
  private java.util.concurrent.ExecutorService chunking; // started when first used

  @SuppressWarnings("deprecation") // NioEventLoopGroup, as in gRPC's own Netty transport
  private SharedThreads() {
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread thread = new Thread(r, "cutpoint-timer");
              thread.setDaemon(true);
              return thread;
            });
    t.setRemoveOnCancelPolicy(true);
    timer = Executors.unconfigurableScheduledExecutorService(t);
    io =
        new NioEventLoopGroup(
            Math.max(1, Runtime.getRuntime().availableProcessors()),
            new DefaultThreadFactory("cutpoint-io", true));
  }

  /** The shared threads, started if no worker holds them. Pair with {@link #release}. */
  public static synchronized SharedThreads acquire() {
    if (current == null) {
      current = new SharedThreads();
    }
    users++;
    return current;
  }

  /** One holder is done; the last one stops the threads and waits for them. */
  public void release() {
    boolean last;
    synchronized (SharedThreads.class) {
      last = --users == 0 && current == this;
      if (last) {
        current = null;
      }
    }
    if (last) {
      timer.shutdownNow();
      java.util.concurrent.ExecutorService c;
      synchronized (this) {
        c = chunking;
      }
      if (c != null) {
        c.shutdownNow();
      }
      try {
        timer.awaitTermination(5, TimeUnit.SECONDS);
        if (c != null) {
          c.awaitTermination(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      var done = io.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      boolean onIo = false;
      for (EventExecutor e : io) {
        onIo |= e.inEventLoop();
      }
      if (!onIo) { // a thread of the group cannot wait for its own end
        done.awaitUninterruptibly(5, TimeUnit.SECONDS);
      }
    }
  }

  /** How many holders the shared threads have now (0 when none are running). */
  static synchronized int holders() {
    return users;
  }

  /**
   * The shared timer: schedule short tasks only, and cancel your own at close (never shut it down).
   */
  public ScheduledExecutorService timer() {
    return timer;
  }

  EventLoopGroup io() {
    return io;
  }

  /**
   * Where workers cut and hash their captured states for content-addressed uploads ({@code
   * cutpoint-chunks-N}, one thread per core, started when first asked for): off the workers' event
   * loops, so that a large state does not hold back the markers and messages of the worker that
   * captured it, and the states of several workers are hashed at once.
   */
  public synchronized java.util.concurrent.ExecutorService chunking() {
    if (chunking == null) {
      java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
      chunking =
          Executors.newFixedThreadPool(
              Math.max(1, Runtime.getRuntime().availableProcessors()),
              r -> {
                Thread t = new Thread(r, "cutpoint-chunks-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
    }
    return chunking;
  }
}
