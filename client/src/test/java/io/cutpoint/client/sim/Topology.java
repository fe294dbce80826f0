package io.cutpoint.client.sim;

import io.cutpoint.cut.ChannelId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Workers and the directed channels between them. Worker ids are {@code w0, w1, ...} unless a
 * topology is built from explicit ids. Immutable.
 *
 * @param name a short description, printed with failing schedules
 * @param workers every worker, including those without channels
 * @param channels directed channels {@code from -> to}
 */
public record Topology(String name, SortedSet<String> workers, SortedSet<ChannelId> channels) {

  public Topology {
    workers = Collections.unmodifiableSortedSet(new TreeSet<>(workers));
    channels = Collections.unmodifiableSortedSet(new TreeSet<>(channels));
    for (ChannelId c : channels) {
      if (!workers.contains(c.from()) || !workers.contains(c.to())) {
        throw new IllegalArgumentException("channel " + c + " joins an unknown worker");
      }
      if (c.from().equals(c.to())) {
        throw new IllegalArgumentException("channel " + c + " is a self-loop");
      }
    }
  }

  public static Topology of(
      String name, Collection<String> workers, Collection<ChannelId> channels) {
    return new Topology(name, new TreeSet<>(workers), new TreeSet<>(channels));
  }

  /** Peers {@code worker} sends to, sorted. */
  public SortedSet<String> outgoing(String worker) {
    SortedSet<String> out = new TreeSet<>();
    for (ChannelId c : channels) {
      if (c.from().equals(worker)) {
        out.add(c.to());
      }
    }
    return out;
  }

  /** Peers {@code worker} receives from, sorted. */
  public SortedSet<String> incoming(String worker) {
    SortedSet<String> in = new TreeSet<>();
    for (ChannelId c : channels) {
      if (c.to().equals(worker)) {
        in.add(c.from());
      }
    }
    return in;
  }

  /** Workers a marker from any of {@code initiators} reaches, initiators included. */
  public SortedSet<String> reachableFrom(Collection<String> initiators) {
    SortedSet<String> seen = new TreeSet<>(initiators);
    Deque<String> todo = new ArrayDeque<>(initiators);
    while (!todo.isEmpty()) {
      for (String next : outgoing(todo.pop())) {
        if (seen.add(next)) {
          todo.push(next);
        }
      }
    }
    return seen;
  }

  /**
   * {@code chosen} plus as few further workers as this greedy pass finds so that every worker is
   * reachable: what a coordinator must do when the graph is not strongly connected.
   */
  public SortedSet<String> coveringInitiators(Collection<String> chosen, SplittableRandom random) {
    SortedSet<String> initiators = new TreeSet<>(chosen);
    SortedSet<String> reached = reachableFrom(initiators);
    while (reached.size() < workers.size()) {
      List<String> unreached = new ArrayList<>(workers);
      unreached.removeAll(reached);
      // prefer a worker nobody unreached points to (a source of what is left), else any
      List<String> sources = new ArrayList<>(unreached);
      for (ChannelId c : channels) {
        if (unreached.contains(c.from())) {
          sources.remove(c.to());
        }
      }
      List<String> pick = sources.isEmpty() ? unreached : sources;
      initiators.add(pick.get(random.nextInt(pick.size())));
      reached = reachableFrom(initiators);
    }
    return initiators;
  }

  /** Workers with no incoming channel. */
  public SortedSet<String> sources() {
    SortedSet<String> sources = new TreeSet<>(workers);
    channels.forEach(c -> sources.remove(c.to()));
    return sources;
  }

  // ------------------------------------------------------------------ shapes

  static List<String> ids(int n) {
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add("w" + i);
    }
    return ids;
  }

  /** {@code w0 -> w1 -> ... -> w(n-1) -> w0}. */
  public static Topology ring(int n) {
    List<String> w = ids(n);
    List<ChannelId> c = new ArrayList<>();
    for (int i = 0; i < n && n > 1; i++) {
      c.add(ChannelId.of(w.get(i), w.get((i + 1) % n)));
    }
    return of("ring(" + n + ")", w, c);
  }

  /** {@code w0 <-> w1 <-> ... <-> w(n-1)}. */
  public static Topology line(int n) {
    List<String> w = ids(n);
    List<ChannelId> c = new ArrayList<>();
    for (int i = 0; i + 1 < n; i++) {
      c.add(ChannelId.of(w.get(i), w.get(i + 1)));
      c.add(ChannelId.of(w.get(i + 1), w.get(i)));
    }
    return of("line(" + n + ")", w, c);
  }

  /** {@code w0 <-> wi} for every other worker. */
  public static Topology star(int n) {
    List<String> w = ids(n);
    List<ChannelId> c = new ArrayList<>();
    for (int i = 1; i < n; i++) {
      c.add(ChannelId.of(w.get(0), w.get(i)));
      c.add(ChannelId.of(w.get(i), w.get(0)));
    }
    return of("star(" + n + ")", w, c);
  }

  /** Every ordered pair of distinct workers. */
  public static Topology fullMesh(int n) {
    List<String> w = ids(n);
    List<ChannelId> c = new ArrayList<>();
    for (String a : w) {
      for (String b : w) {
        if (!a.equals(b)) {
          c.add(ChannelId.of(a, b));
        }
      }
    }
    return of("mesh(" + n + ")", w, c);
  }

  /** A random Hamiltonian cycle (so strongly connected) plus each other edge with {@code p}. */
  public static Topology randomStronglyConnected(int n, double p, SplittableRandom random) {
    List<String> w = ids(n);
    List<String> order = shuffled(w, random);
    List<ChannelId> c = new ArrayList<>();
    for (int i = 0; i < n && n > 1; i++) {
      c.add(ChannelId.of(order.get(i), order.get((i + 1) % n)));
    }
    for (String a : w) {
      for (String b : w) {
        if (!a.equals(b) && random.nextDouble() < p) {
          c.add(ChannelId.of(a, b));
        }
      }
    }
    Topology t = of("scc(" + n + ")", w, new TreeSet<>(c));
    return new Topology(t.name() + t.channels(), t.workers(), t.channels());
  }

  /** Edges only from earlier to later workers of a random order, each with {@code p}. */
  public static Topology randomDag(int n, double p, SplittableRandom random) {
    List<String> order = shuffled(ids(n), random);
    List<ChannelId> c = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        if (random.nextDouble() < p) {
          c.add(ChannelId.of(order.get(i), order.get(j)));
        }
      }
    }
    Topology t = of("dag(" + n + ")", order, c);
    return new Topology(t.name() + t.channels(), t.workers(), t.channels());
  }

  /** One worker and no channels at all. */
  public static Topology loneWorker() {
    return of("lone", List.of("w0"), List.of());
  }

  /** {@code base} plus one more worker with no channels. */
  public Topology withIsolatedWorker() {
    String extra = "w" + workers.size();
    SortedSet<String> w = new TreeSet<>(workers);
    w.add(extra);
    return new Topology(name + "+isolated", w, channels);
  }

  private static List<String> shuffled(List<String> items, SplittableRandom random) {
    List<String> out = new ArrayList<>(items);
    for (int i = out.size() - 1; i > 0; i--) {
      Collections.swap(out, i, random.nextInt(i + 1));
    }
    return out;
  }

  @Override
  public String toString() {
    return name;
  }
}
