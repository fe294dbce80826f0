package io.cutpoint.server.lifecycle;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a task on a scheduler when asked, but never twice at once and at most once per spacing:
 * requests that arrive while a run is waiting for its turn are folded into that run, and one that
 * arrives while a run is under way gets a run after it. For work whose one run covers every request
 * made before it began, such as the coordinator's retention after commits (it deletes what is over
 * the limit then) or the analysis of the newest committed snapshot: at a snapshot every 100 ms and
 * a spacing of 250 ms it runs about once per three commits, each run doing what three would have.
 *
 * <p>Thread-safe without a lock: {@link #request} may be called from any thread (the coordinator's
 * loop, after a commit), and the runs happen on the scheduler's.
 */
public final class Coalescer {

  private final Scheduler scheduler;
  private final Clock clock;
  private final Duration spacing;
  private final Runnable task;

  /** A run is scheduled and has not begun. */
  private final AtomicBoolean queued = new AtomicBoolean();

  /** When the last run began; written before {@link #queued} is cleared, read after it is set. */
  private volatile Instant lastStart = Instant.MIN;

  /**
   * {@code task} runs on {@code scheduler}'s thread, its runs begun at least {@code spacing} apart.
   */
  public Coalescer(Scheduler scheduler, Clock clock, Duration spacing, Runnable task) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.spacing = Objects.requireNonNull(spacing, "spacing");
    this.task = Objects.requireNonNull(task, "task");
    if (spacing.isNegative()) {
      throw new IllegalArgumentException("negative spacing " + spacing);
    }
  }

  /** Asks for a run that begins after this call; never blocks. */
  public void request() {
    if (!queued.compareAndSet(false, true)) {
      return; // the queued run has not begun: it covers this request
    }
    Instant last = lastStart;
    Duration wait = last.equals(Instant.MIN) ? Duration.ZERO : waitAfter(last, clock.instant());
    scheduler.schedule(this::run, wait);
  }

  /**
   * What is left of the spacing after a run began at {@code start}: never less than nothing, nor
   * more than the spacing, whatever the wall clock did meanwhile (stepped back, it would otherwise
   * hold every run for as long as the step).
   */
  private Duration waitAfter(Instant start, Instant now) {
    Duration left = Duration.between(now, start.plus(spacing));
    if (left.isNegative()) {
      return Duration.ZERO;
    }
    return left.compareTo(spacing) > 0 ? spacing : left;
  }

  private void run() {
    lastStart = clock.instant();
    queued.set(false); // a request from now on is after this run began: it gets a run of its own
    task.run();
  }
}
