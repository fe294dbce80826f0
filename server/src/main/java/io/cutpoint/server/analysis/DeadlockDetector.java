package io.cutpoint.server.analysis;

import io.cutpoint.cut.StronglyConnected;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Finds every deadlocked set of a cut's {@link WaitForGraph} under the AND (resource) model.
 *
 * <p>The model: a blocked worker needs <em>every</em> peer it declared a wait on to send to it
 * before it can go on (it waits for all the resources it named, as a philosopher waits for both
 * forks). So a worker is deadlocked as soon as <em>any</em> peer it waits for is deadlocked. Under
 * this model a deadlock exists exactly when the graph has a cycle, and:
 *
 * <ul>
 *   <li>every non-trivial strongly connected component (two or more workers, or one worker that
 *       waits for itself) is a core of deadlocked workers: each waits, among others, for a member
 *       of the core, and none of them can send first;
 *   <li>the deadlocked set of a core is the core plus every blocked worker that reaches it along
 *       wait-for edges (it waits, perhaps through other waiters, for a worker that never sends).
 * </ul>
 *
 * <p>A worker that reaches two cores appears in both sets. Output is deterministic: sets ordered by
 * the smallest worker of their core, workers and edges sorted, the cycle found by a breadth-first
 * search from the core's smallest worker visiting holders in sorted order (a shortest cycle).
 */
public final class DeadlockDetector {

  private DeadlockDetector() {}

  /** Builds the wait-for graph of {@code cut} and analyses it. */
  public static DeadlockVerdict detect(CutModel cut) {
    return detect(WaitForGraph.of(cut));
  }

  /** Analyses an already built graph. */
  public static DeadlockVerdict detect(WaitForGraph graph) {
    List<SortedSet<String>> cores = new ArrayList<>();
    for (SortedSet<String> scc : StronglyConnected.components(graph.nodes(), graph::holdersOf)) {
      String only = scc.first();
      if (scc.size() > 1 || graph.holdersOf(only).contains(only)) {
        cores.add(scc);
      }
    }
    cores.sort(Comparator.comparing(SortedSet::first));

    Map<String, SortedSet<String>> waitersOf = reverse(graph);
    List<Deadlock> sets = new ArrayList<>();
    for (SortedSet<String> core : cores) {
      SortedSet<String> members = reachersOf(core, waitersOf);
      sets.add(new Deadlock(members, core, cycleThrough(core, graph), graph.edgesWithin(members)));
    }
    return new DeadlockVerdict(sets, graph.unblockedByInFlight());
  }

  private static Map<String, SortedSet<String>> reverse(WaitForGraph graph) {
    Map<String, SortedSet<String>> waiters = new HashMap<>();
    for (WaitsFor e : graph.edges()) {
      waiters.computeIfAbsent(e.holder(), k -> new TreeSet<>()).add(e.waiter());
    }
    return waiters;
  }

  /** The core and every worker that reaches it along wait-for edges. */
  private static SortedSet<String> reachersOf(
      SortedSet<String> core, Map<String, SortedSet<String>> waitersOf) {
    SortedSet<String> seen = new TreeSet<>(core);
    Deque<String> todo = new ArrayDeque<>(core);
    while (!todo.isEmpty()) {
      String holder = todo.poll();
      for (String waiter : waitersOf.getOrDefault(holder, Collections.emptySortedSet())) {
        if (seen.add(waiter)) {
          todo.add(waiter);
        }
      }
    }
    return seen;
  }

  /** A shortest cycle through the smallest worker of {@code core}, staying inside the core. */
  private static List<String> cycleThrough(SortedSet<String> core, WaitForGraph graph) {
    String start = core.first();
    SortedMap<String, String> parent = new TreeMap<>();
    Deque<String> todo = new ArrayDeque<>();
    todo.add(start);
    while (!todo.isEmpty()) {
      String v = todo.poll();
      for (String w : graph.holdersOf(v)) {
        if (w.equals(start)) {
          List<String> cycle = new ArrayList<>();
          for (String at = v; at != null; at = parent.get(at)) {
            cycle.add(at);
          }
          Collections.reverse(cycle);
          return cycle;
        }
        if (core.contains(w) && !parent.containsKey(w)) {
          parent.put(w, v);
          todo.add(w);
        }
      }
    }
    throw new IllegalStateException("no cycle through " + start + " in component " + core);
  }
}
