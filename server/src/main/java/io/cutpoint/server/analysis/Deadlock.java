package io.cutpoint.server.analysis;

import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One deadlocked set: a cycle of blocked workers and every blocked worker that waits on it,
 * directly or through other waiters.
 *
 * @param workers every worker of the set, sorted
 * @param core the strongly connected component at its heart (the workers on cycles), sorted
 * @param cycle one cycle through the core, starting at its smallest worker id: each waits for the
 *     next, the last for the first (a single worker waits for itself)
 * @param edges the remaining wait-for edges between workers of the set, sorted: they prove it
 */
public record Deadlock(
    SortedSet<String> workers, SortedSet<String> core, List<String> cycle, List<WaitsFor> edges) {

  public Deadlock {
    workers = Collections.unmodifiableSortedSet(new TreeSet<>(workers));
    core = Collections.unmodifiableSortedSet(new TreeSet<>(core));
    cycle = List.copyOf(cycle);
    edges = List.copyOf(edges);
    if (core.isEmpty() || !workers.containsAll(core) || !core.containsAll(cycle)) {
      throw new IllegalArgumentException("inconsistent deadlock " + workers + " " + core + cycle);
    }
  }

  /** The blocked workers that are not on a cycle themselves but wait on one. */
  public SortedSet<String> hangingWaiters() {
    SortedSet<String> rest = new TreeSet<>(workers);
    rest.removeAll(core);
    return Collections.unmodifiableSortedSet(rest);
  }
}
