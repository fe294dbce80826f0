package io.cutpoint.playground.sim;

import java.util.ArrayDeque;
import java.util.Deque;

/** The recent past, for the space-time diagram: arrivals, state captures and rollbacks. */
public final class History {

  /** Entries kept of each kind. */
  static final int KEPT = 600;

  /** A message or marker that arrived. */
  public record Arrival(Transit transit, long at) {}

  /** A process recorded its state for a snapshot. */
  public record Capture(String process, long snapshotId, long at) {}

  /** Every process went back to a snapshot. */
  public record Rollback(long snapshotId, long at) {}

  private final Deque<Arrival> arrivals = new ArrayDeque<>();
  private final Deque<Capture> captures = new ArrayDeque<>();
  private final Deque<Rollback> rollbacks = new ArrayDeque<>();

  void delivered(Transit t, long at) {
    add(arrivals, new Arrival(t, at));
  }

  void captured(String process, long snapshotId, long at) {
    add(captures, new Capture(process, snapshotId, at));
  }

  void rolledBack(long snapshotId, long at) {
    add(rollbacks, new Rollback(snapshotId, at));
  }

  private static <T> void add(Deque<T> d, T item) {
    d.addLast(item);
    if (d.size() > KEPT) {
      d.removeFirst();
    }
  }

  public Iterable<Arrival> arrivals() {
    return arrivals;
  }

  public Iterable<Capture> captures() {
    return captures;
  }

  public Iterable<Rollback> rollbacks() {
    return rollbacks;
  }
}
