package io.cutpoint.ops.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** The channel layouts of the demo: who sends to whom. Pure and seeded. */
public final class Topologies {

  /** A layout. */
  public enum Kind {
    /** Each worker sends to the next: w1 -> w2 -> ... -> wN -> w1. */
    RING,
    /** Every worker sends to every other. */
    MESH,
    /**
     * Each ordered pair is a channel with probability 0.4; every worker gets at least one outgoing
     * and one incoming channel. Not necessarily strongly connected, so a snapshot may need several
     * initiators.
     */
    RANDOM
  }

  private Topologies() {}

  /** Worker ids {@code bank-1 .. bank-N}. */
  public static List<String> ids(int workers) {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      ids.add("bank-" + i);
    }
    return ids;
  }

  /** Outgoing peers of every worker. */
  public static Map<String, SortedSet<String>> outgoing(Kind kind, List<String> ids, long seed) {
    if (ids.size() < 2) {
      throw new IllegalArgumentException("a bank needs at least 2 workers, got " + ids.size());
    }
    Map<String, SortedSet<String>> out = new TreeMap<>();
    for (String id : ids) {
      out.put(id, new TreeSet<>());
    }
    int n = ids.size();
    switch (kind) {
      case RING -> {
        for (int i = 0; i < n; i++) {
          out.get(ids.get(i)).add(ids.get((i + 1) % n));
        }
      }
      case MESH -> {
        for (String a : ids) {
          for (String b : ids) {
            if (!a.equals(b)) {
              out.get(a).add(b);
            }
          }
        }
      }
      case RANDOM -> {
        Random random = new Random(seed);
        for (String a : ids) {
          for (String b : ids) {
            if (!a.equals(b) && random.nextDouble() < 0.4) {
              out.get(a).add(b);
            }
          }
        }
        for (int i = 0; i < n; i++) {
          String a = ids.get(i);
          if (out.get(a).isEmpty()) {
            out.get(a).add(other(ids, i, random));
          }
        }
        for (int i = 0; i < n; i++) {
          String b = ids.get(i);
          if (incoming(out, b).isEmpty()) {
            out.get(other(ids, i, random)).add(b);
          }
        }
      }
      default -> throw new IllegalArgumentException(kind.toString());
    }
    return out;
  }

  /** The peers that send to {@code id}. */
  public static SortedSet<String> incoming(Map<String, SortedSet<String>> outgoing, String id) {
    SortedSet<String> in = new TreeSet<>();
    outgoing.forEach(
        (from, tos) -> {
          if (tos.contains(id)) {
            in.add(from);
          }
        });
    return in;
  }

  /** Number of channels. */
  public static int channels(Map<String, SortedSet<String>> outgoing) {
    return outgoing.values().stream().mapToInt(SortedSet::size).sum();
  }

  private static String other(List<String> ids, int self, Random random) {
    int j = random.nextInt(ids.size() - 1);
    return ids.get(j >= self ? j + 1 : j);
  }
}
