package io.cutpoint.cut;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Tarjan's strongly connected components, without recursion (a chain of channels or of waits may be
 * as long as the cluster is large). Deterministic when the successors come in sorted order. Used
 * for choosing initiators (source components of the channel graph) and for deadlocks (cycles of the
 * wait-for graph).
 */
public final class StronglyConnected {

  private StronglyConnected() {}

  /**
   * The components of the graph over {@code nodes}, each sorted, in the order Tarjan closes them.
   */
  public static List<SortedSet<String>> components(
      SortedSet<String> nodes, Function<String, SortedSet<String>> successors) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new HashSet<>();
    List<SortedSet<String>> out = new ArrayList<>();
    int next = 0;

    for (String root : nodes) {
      if (index.containsKey(root)) {
        continue;
      }
      // Each frame: the node and the iterator over its successors still to look at.
      Deque<Map.Entry<String, Iterator<String>>> frames = new ArrayDeque<>();
      index.put(root, next);
      low.put(root, next);
      next++;
      stack.push(root);
      onStack.add(root);
      frames.push(Map.entry(root, successors.apply(root).iterator()));

      while (!frames.isEmpty()) {
        Map.Entry<String, Iterator<String>> frame = frames.peek();
        String v = frame.getKey();
        Iterator<String> it = frame.getValue();
        if (it.hasNext()) {
          String w = it.next();
          if (!index.containsKey(w)) {
            index.put(w, next);
            low.put(w, next);
            next++;
            stack.push(w);
            onStack.add(w);
            frames.push(Map.entry(w, successors.apply(w).iterator()));
          } else if (onStack.contains(w)) {
            low.put(v, Math.min(low.get(v), index.get(w)));
          }
          continue;
        }
        frames.pop();
        if (!frames.isEmpty()) {
          String parent = frames.peek().getKey();
          low.put(parent, Math.min(low.get(parent), low.get(v)));
        }
        if (low.get(v).equals(index.get(v))) {
          SortedSet<String> component = new TreeSet<>();
          String w;
          do {
            w = stack.pop();
            onStack.remove(w);
            component.add(w);
          } while (!w.equals(v));
          out.add(component);
        }
      }
    }
    return out;
  }
}
