package io.cutpoint.server.membership;

import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.StronglyConnected;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Chooses the initiators of a snapshot so that every worker is reachable from one of them along
 * channels (DESIGN section 1): one worker per <em>source</em> strongly-connected component of the
 * channel graph, i.e. per component that no channel enters from outside. Every other component is
 * reachable from a source component, so these initiators reach every worker, and no smaller set
 * does. The representative of a component is its smallest worker id, which makes the choice
 * deterministic. Pure.
 */
public final class InitiatorSelection {

  private InitiatorSelection() {}

  /** The initiators for {@code workers} connected by {@code channels}. */
  public static SortedSet<String> select(
      Collection<String> workers, Collection<ChannelId> channels) {
    return selectWith(workers, channels, null);
  }

  /**
   * The initiators when {@code requester} (may be null) initiates anyway: the requester plus one
   * worker of every source component that does not contain it.
   */
  public static SortedSet<String> selectWith(
      Collection<String> workers, Collection<ChannelId> channels, String requester) {
    List<SortedSet<String>> components = stronglyConnectedComponents(workers, channels);
    Map<String, Integer> componentOf = new HashMap<>();
    for (int i = 0; i < components.size(); i++) {
      for (String w : components.get(i)) {
        componentOf.put(w, i);
      }
    }
    boolean[] entered = new boolean[components.size()];
    for (ChannelId c : channels) {
      Integer from = componentOf.get(c.from());
      Integer to = componentOf.get(c.to());
      if (from != null && to != null && !from.equals(to)) {
        entered[to] = true;
      }
    }
    SortedSet<String> out = new TreeSet<>();
    if (requester != null) {
      out.add(requester);
    }
    for (int i = 0; i < components.size(); i++) {
      SortedSet<String> comp = components.get(i);
      if (!entered[i] && (requester == null || !comp.contains(requester))) {
        out.add(comp.first());
      }
    }
    return out;
  }

  /** Strongly-connected components of the channel graph, each sorted. */
  static List<SortedSet<String>> stronglyConnectedComponents(
      Collection<String> workers, Collection<ChannelId> channels) {
    Map<String, SortedSet<String>> next = new HashMap<>();
    SortedSet<String> nodes = new TreeSet<>(workers);
    for (String w : nodes) {
      next.put(w, new TreeSet<>());
    }
    for (ChannelId c : channels) {
      if (next.containsKey(c.from()) && next.containsKey(c.to())) {
        next.get(c.from()).add(c.to());
      }
    }
    return StronglyConnected.components(nodes, next::get);
  }
}
