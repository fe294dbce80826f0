package io.cutpoint.server.analysis;

import io.cutpoint.cut.ChannelId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The global wait-for graph of a cut, after the in-flight rule.
 *
 * <p>Every wait a worker declared becomes an edge {@code waiter -> holder}, except when the cut
 * records at least one message in transit on the channel {@code holder -> waiter}: that message is
 * already on its way and, once delivered, answers the wait, so the edge is dropped and kept apart
 * in {@link #unblockedByInFlight()}. The analysis cannot read payloads, so one message from the
 * holder answers every wait on that holder: the rule can only remove edges, never add one, so it
 * can hide a deadlock whose cure is a message that does not actually help, but never invents one.
 *
 * <p>A worker is <em>blocked</em> when at least one edge leaves it. Waits on a peer that is not a
 * worker of the cut stay as edges (so they are reported) but that peer has no edges of its own, so
 * it is never part of a cycle.
 */
public final class WaitForGraph {

  private final SortedSet<WaitsFor> edges;
  private final SortedSet<WaitsFor> unblocked;
  private final SortedMap<String, SortedSet<String>> successors;

  private WaitForGraph(SortedSet<WaitsFor> edges, SortedSet<WaitsFor> unblocked) {
    this.edges = Collections.unmodifiableSortedSet(edges);
    this.unblocked = Collections.unmodifiableSortedSet(unblocked);
    SortedMap<String, SortedSet<String>> succ = new TreeMap<>();
    for (WaitsFor e : edges) {
      succ.computeIfAbsent(e.waiter(), k -> new TreeSet<>()).add(e.holder());
    }
    succ.replaceAll((k, v) -> Collections.unmodifiableSortedSet(v));
    this.successors = Collections.unmodifiableSortedMap(succ);
  }

  /** Builds the graph of {@code cut}, applying the in-flight rule. */
  public static WaitForGraph of(CutModel cut) {
    SortedSet<WaitsFor> kept = new TreeSet<>();
    SortedSet<WaitsFor> unblocked = new TreeSet<>();
    for (CutModel.Worker w : cut.workers().values()) {
      for (CutModel.Wait wait : w.waits()) {
        WaitsFor edge = new WaitsFor(w.id(), wait.peer(), wait.resource());
        if (cut.inTransit(ChannelId.of(wait.peer(), w.id()))) {
          unblocked.add(edge);
        } else {
          kept.add(edge);
        }
      }
    }
    return new WaitForGraph(kept, unblocked);
  }

  /** The edges that remain, sorted. */
  public SortedSet<WaitsFor> edges() {
    return edges;
  }

  /** Declared waits answered by a message in transit from the holder, sorted. */
  public SortedSet<WaitsFor> unblockedByInFlight() {
    return unblocked;
  }

  /** Workers with at least one remaining edge, sorted. */
  public SortedSet<String> blockedWorkers() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(successors.keySet()));
  }

  /** The workers {@code worker} waits for, sorted; empty when it is not blocked. */
  public SortedSet<String> holdersOf(String worker) {
    return successors.getOrDefault(worker, Collections.emptySortedSet());
  }

  /** Every node: the blocked workers and everything they wait for, sorted. */
  public SortedSet<String> nodes() {
    SortedSet<String> all = new TreeSet<>(successors.keySet());
    successors.values().forEach(all::addAll);
    return all;
  }

  /** The remaining edges whose waiter and holder are both in {@code workers}, sorted. */
  public List<WaitsFor> edgesWithin(SortedSet<String> workers) {
    List<WaitsFor> out = new ArrayList<>();
    for (WaitsFor e : edges) {
      if (workers.contains(e.waiter()) && workers.contains(e.holder())) {
        out.add(e);
      }
    }
    return out;
  }
}
