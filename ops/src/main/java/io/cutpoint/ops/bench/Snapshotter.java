package io.cutpoint.ops.bench;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Triggers a snapshot every {@code interval} (waiting for each; a late one starts the next at once)
 * and records trigger-to-committed latencies of the complete ones, and the steps of their critical
 * paths. Read what it recorded after {@link #close}.
 */
final class Snapshotter implements AutoCloseable {

  private final BenchCoordinator coordinator;
  private final long intervalNanos;
  private final Samples samples;
  private final Map<String, Samples> path;
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong inFlightBytes = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean recording;

  /** {@code path}: each step's samples, by step (filled on this one's thread only). */
  Snapshotter(
      BenchCoordinator coordinator,
      long intervalMillis,
      Samples samples,
      Map<String, Samples> path) {
    this.coordinator = coordinator;
    this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
    this.samples = samples;
    this.path = path;
    this.thread = new Thread(this::loop, "cutpoint-bench-snapshotter");
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    long next = System.nanoTime();
    while (running) {
      next += intervalNanos;
      boolean counted = recording; // a snapshot counts when it started inside the window
      try {
        BenchCoordinator.Taken t = coordinator.snapshot();
        if (counted) {
          if (t.complete()) {
            completed.incrementAndGet();
            samples.add(t.clientMillis());
            t.steps((step, ms) -> path.computeIfAbsent(step, k -> new Samples()).add(ms));
            inFlightBytes.addAndGet(t.manifest().getTotalChannelBytes());
          } else {
            failed.incrementAndGet();
          }
        }
      } catch (RuntimeException e) {
        if (counted) {
          failed.incrementAndGet();
        }
      }
      long now = System.nanoTime();
      if (now < next) {
        Pause.untilNanos(next);
      } else {
        next = now;
      }
    }
  }

  /** Only snapshots started while this is on count; {@link #close} waits for the last one. */
  void record(boolean on) {
    recording = on;
  }

  long completed() {
    return completed.get();
  }

  long failed() {
    return failed.get();
  }

  /** Recorded in-flight payload bytes, summed over the completed snapshots. */
  long inFlightBytes() {
    return inFlightBytes.get();
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(TimeUnit.MINUTES.toMillis(3));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
