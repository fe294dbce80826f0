package io.cutpoint.server.testing;

import io.cutpoint.server.lifecycle.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A scheduler whose tasks run only when the test advances time ({@link #advance}) or runs what is
 * due ({@link #runDue}), on the test's thread.
 */
public final class ManualScheduler implements Scheduler {

  private final ManualClock clock;
  private final List<Task> tasks = new ArrayList<>();
  private long seq;

  private static final class Task {
    final Instant due;
    final long seq;
    final Runnable run;
    boolean cancelled;

    Task(Instant due, long seq, Runnable run) {
      this.due = due;
      this.seq = seq;
      this.run = run;
    }
  }

  public ManualScheduler(ManualClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, Duration delay) {
    Task t = new Task(clock.instant().plus(delay), seq++, task);
    tasks.add(t);
    return () -> t.cancelled = true;
  }

  /** Tasks scheduled and neither run nor cancelled. */
  public synchronized int scheduled() {
    return (int) tasks.stream().filter(t -> !t.cancelled).count();
  }

  /** Moves the clock by {@code d}, running every task that falls due on the way, in order. */
  public void advance(Duration d) {
    Instant end = clock.instant().plus(d);
    while (true) {
      Task next;
      synchronized (this) {
        next =
            tasks.stream()
                .filter(t -> !t.due.isAfter(end))
                .min(Comparator.comparing((Task t) -> t.due).thenComparingLong(t -> t.seq))
                .orElse(null);
        if (next == null) {
          break;
        }
        tasks.remove(next);
      }
      if (next.due.isAfter(clock.instant())) {
        clock.advance(Duration.between(clock.instant(), next.due));
      }
      if (!next.cancelled) {
        next.run.run();
      }
    }
    if (end.isAfter(clock.instant())) {
      clock.advance(Duration.between(clock.instant(), end));
    }
  }

  /** Runs what is due now. */
  public void runDue() {
    advance(Duration.ZERO);
  }
}
