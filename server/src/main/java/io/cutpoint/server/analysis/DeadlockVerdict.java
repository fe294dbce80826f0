package io.cutpoint.server.analysis;

import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The outcome of {@link DeadlockDetector}.
 *
 * @param sets every deadlocked set, ordered by the smallest worker id of its core
 * @param unblockedByInFlight declared waits answered by a message recorded in transit, sorted
 */
public record DeadlockVerdict(List<Deadlock> sets, SortedSet<WaitsFor> unblockedByInFlight) {

  public DeadlockVerdict {
    sets = List.copyOf(sets);
    unblockedByInFlight = Collections.unmodifiableSortedSet(new TreeSet<>(unblockedByInFlight));
  }

  public boolean deadlocked() {
    return !sets.isEmpty();
  }

  /** Every worker in any deadlocked set, sorted. */
  public SortedSet<String> deadlockedWorkers() {
    SortedSet<String> all = new TreeSet<>();
    sets.forEach(s -> all.addAll(s.workers()));
    return Collections.unmodifiableSortedSet(all);
  }
}
