package io.cutpoint.ops.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** Worker ids and channels of a benchmark cluster. */
record Layout(String name, List<String> ids, Map<String, SortedSet<String>> outgoing) {

  /** {@code w1 -> w2 -> ... -> wN -> w1}. */
  static Layout ring(int n) {
    List<String> ids = ids("w", n);
    Map<String, SortedSet<String>> out = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      out.put(ids.get(i), new TreeSet<>(List.of(ids.get((i + 1) % n))));
    }
    return new Layout("ring", ids, out);
  }

  /** Every worker sends to every other: {@code n * (n - 1)} channels. */
  static Layout mesh(int n) {
    List<String> ids = ids("w", n);
    Map<String, SortedSet<String>> out = new TreeMap<>();
    for (String id : ids) {
      SortedSet<String> peers = new TreeSet<>(ids);
      peers.remove(id);
      out.put(id, peers);
    }
    return new Layout("mesh", ids, out);
  }

  /**
   * {@code p} sources {@code s1..sP}, each sending to all {@code p} keyed workers {@code k1..kP}.
   */
  static Layout dataflow(int p) {
    List<String> sources = ids("s", p);
    List<String> keyed = ids("k", p);
    Map<String, SortedSet<String>> out = new TreeMap<>();
    for (String s : sources) {
      out.put(s, new TreeSet<>(keyed));
    }
    for (String k : keyed) {
      out.put(k, new TreeSet<>());
    }
    List<String> all = new ArrayList<>(sources);
    all.addAll(keyed);
    return new Layout("dataflow", all, out);
  }

  private static List<String> ids(String prefix, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("a layout needs at least one worker per role, got " + n);
    }
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      ids.add(prefix + i);
    }
    return Collections.unmodifiableList(ids);
  }

  SortedSet<String> incoming(String id) {
    SortedSet<String> in = new TreeSet<>();
    outgoing.forEach(
        (from, tos) -> {
          if (tos.contains(id)) {
            in.add(from);
          }
        });
    return in;
  }

  int channels() {
    return outgoing.values().stream().mapToInt(SortedSet::size).sum();
  }
}
