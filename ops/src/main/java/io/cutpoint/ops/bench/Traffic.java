package io.cutpoint.ops.bench;

import io.cutpoint.client.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * Application traffic from plain threads through {@link Worker#send}: either a steady total rate,
 * or as fast as the channels accept (each send waits while its channel is full).
 */
final class Traffic implements AutoCloseable {

  /** One channel to drive: the sending worker, the receiving peer, the payload of message k. */
  record Route(Worker from, String to, LongFunction<byte[]> payload) {
    static Route fixed(Worker from, String to, byte[] payload) {
      return new Route(from, to, k -> payload);
    }
  }

  private static final int BURST = 64;

  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong errors = new AtomicLong();
  private volatile boolean running = true;

  private Traffic() {}

  /** {@code perSecond} messages a second in total, spread round-robin over {@code routes}. */
  static Traffic steady(List<Route> routes, int perSecond) {
    Traffic t = new Traffic();
    t.spawn(
        "cutpoint-bench-steady",
        () -> {
          long tick = TimeUnit.MILLISECONDS.toNanos(1);
          long next = System.nanoTime();
          long sent = 0;
          double owed = 0;
          int r = 0;
          while (t.running) {
            owed += perSecond / 1000.0;
            for (; owed >= 1 && t.running; owed--) {
              Route route = routes.get(r);
              r = (r + 1) % routes.size();
              t.send(route, sent++);
            }
            next += tick;
            Pause.untilNanos(next);
          }
        });
    return t;
  }

  /** {@code threads} threads, each sending bursts round-robin over its share of {@code routes}. */
  static Traffic saturate(List<Route> routes, int threads) {
    Traffic t = new Traffic();
    int n = Math.min(threads, routes.size());
    for (int i = 0; i < n; i++) {
      List<Route> mine = new ArrayList<>();
      for (int j = i; j < routes.size(); j += n) {
        mine.add(routes.get(j));
      }
      t.spawn(
          "cutpoint-bench-source-" + i,
          () -> {
            long k = 0;
            while (t.running) {
              for (Route route : mine) {
                for (int b = 0; b < BURST && t.running; b++) {
                  t.send(route, k++);
                }
              }
            }
          });
    }
    return t;
  }

  private void send(Route route, long k) {
    try {
      route.from().send(route.to(), route.payload().apply(k));
    } catch (RuntimeException e) {
      errors.incrementAndGet();
      if (running) {
        Pause.millis(1);
      }
    }
  }

  private void spawn(String name, Runnable body) {
    Thread th = new Thread(body, name);
    th.setDaemon(true);
    threads.add(th);
    th.start();
  }

  long errors() {
    return errors.get();
  }

  /** Stops every thread and waits for them. */
  @Override
  public void close() {
    running = false;
    for (Thread th : threads) {
      try {
        th.join(TimeUnit.SECONDS.toMillis(40));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
