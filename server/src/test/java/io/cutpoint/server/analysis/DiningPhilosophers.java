package io.cutpoint.server.analysis;

import io.cutpoint.server.analysis.CutModel.Activity;
import io.cutpoint.server.analysis.CutModel.Wait;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded, pure model of the dining philosophers, for tests and demos of deadlock detection.
 *
 * <p>{@code n} philosophers sit in a ring; fork {@code k} lies between philosopher {@code k} (its
 * left fork) and philosopher {@code k-1} (its right fork). A philosopher thinks, gets hungry, takes
 * its first fork, then its second, eats, and puts both back. A fork put back while the neighbour
 * waits for it is <em>sent</em> to that neighbour: it is a message in transit on the channel
 * between them until a later step delivers it, so cuts taken in between exercise the in-flight
 * rule.
 *
 * <p>The lock order is drawn once per table from the seed: with probability {@code fatalChance}
 * every philosopher takes its left fork first (the symmetric order that can deadlock, when all hold
 * their left fork at once); otherwise the last philosopher takes its right fork first (a global
 * order on forks, which cannot deadlock). {@link #step()} makes one move chosen at random among the
 * possible ones; {@link #stuck()} is the ground truth (no move possible), computed from the forks,
 * not from any wait-for graph.
 *
 * <p>{@link #philosophers()} is what each philosopher would declare at capture time (activity and
 * waits, resource {@code fork-k}); {@link #cut()} is the whole table as a {@link CutModel}. A demo
 * maps each {@link Philosopher} to the worker SDK's {@code CapturedState}.
 */
final class DiningPhilosophers {

  /** Where a philosopher is in its cycle. */
  enum Phase {
    THINKING,
    WANTS_FIRST,
    WANTS_SECOND,
    EATING
  }

  /**
   * What one philosopher declares.
   *
   * @param id worker id ({@code p0}, {@code p1}, ...)
   * @param phase where it is
   * @param activity passive exactly when it waits for a fork someone else has
   * @param waits the neighbour that has (or is being sent) the fork it wants, if any
   */
  record Philosopher(String id, Phase phase, Activity activity, List<Wait> waits) {}

  private static final int NOBODY = -1;

  private final int n;
  private final SplittableRandom random; // mixes small, adjacent seeds well
  private final boolean fatalOrder;
  private final Phase[] phase;
  private final int[] holder; // fork -> philosopher holding it, or NOBODY
  private final int[] sentTo; // fork -> philosopher it is in transit to, or NOBODY
  private final int[] sentBy; // fork -> philosopher that sent it, while in transit
  private long steps;

  DiningPhilosophers(int n, long seed, double fatalChance) {
    if (n < 2) {
      throw new IllegalArgumentException("a table needs at least 2 philosophers, got " + n);
    }
    if (fatalChance < 0 || fatalChance > 1) {
      throw new IllegalArgumentException("fatalChance must be in [0, 1], got " + fatalChance);
    }
    this.n = n;
    this.random = new SplittableRandom(seed);
    this.fatalOrder = random.nextDouble() < fatalChance;
    this.phase = new Phase[n];
    this.holder = new int[n];
    this.sentTo = new int[n];
    this.sentBy = new int[n];
    java.util.Arrays.fill(phase, Phase.THINKING);
    java.util.Arrays.fill(holder, NOBODY);
    java.util.Arrays.fill(sentTo, NOBODY);
    java.util.Arrays.fill(sentBy, NOBODY);
  }

  static String id(int philosopher) {
    return "p" + philosopher;
  }

  /** Whether this table uses the symmetric, deadlock-prone lock order. */
  boolean fatalOrder() {
    return fatalOrder;
  }

  int size() {
    return n;
  }

  long steps() {
    return steps;
  }

  int firstFork(int p) {
    boolean rightFirst = !fatalOrder && p == n - 1;
    return rightFirst ? right(p) : p;
  }

  int secondFork(int p) {
    boolean rightFirst = !fatalOrder && p == n - 1;
    return rightFirst ? p : right(p);
  }

  private int right(int p) {
    return (p + 1) % n;
  }

  /** The fork {@code p} wants next, or NOBODY when it wants none. */
  private int wanted(int p) {
    return switch (phase[p]) {
      case WANTS_FIRST -> firstFork(p);
      case WANTS_SECOND -> secondFork(p);
      default -> NOBODY;
    };
  }

  private boolean free(int fork) {
    return holder[fork] == NOBODY && sentTo[fork] == NOBODY;
  }

  /** The other philosopher that shares {@code fork} with {@code p}. */
  private int neighbourAt(int fork, int p) {
    return fork == p ? (p + n - 1) % n : right(p);
  }

  /** Every possible move, as (kind, index) pairs encoded in one int list. */
  private List<int[]> moves() {
    List<int[]> moves = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      switch (phase[p]) {
        case THINKING, EATING -> moves.add(new int[] {0, p});
        default -> {
          if (free(wanted(p))) {
            moves.add(new int[] {0, p});
          }
        }
      }
    }
    for (int fork = 0; fork < n; fork++) {
      if (sentTo[fork] != NOBODY) {
        moves.add(new int[] {1, fork});
      }
    }
    return moves;
  }

  /** True when no philosopher can move and no fork is on its way: the table is deadlocked. */
  boolean stuck() {
    return moves().isEmpty();
  }

  /** Makes one random move; returns false (and does nothing) when the table is stuck. */
  boolean step() {
    List<int[]> moves = moves();
    if (moves.isEmpty()) {
      return false;
    }
    int[] move = moves.get(random.nextInt(moves.size()));
    if (move[0] == 1) {
      deliver(move[1]);
    } else {
      advance(move[1]);
    }
    steps++;
    return true;
  }

  /** Steps until stuck or {@code maxSteps} moves; returns whether it got stuck. */
  boolean runUntilStuck(int maxSteps) {
    for (int i = 0; i < maxSteps; i++) {
      if (!step()) {
        return true;
      }
    }
    return stuck();
  }

  private void advance(int p) {
    switch (phase[p]) {
      case THINKING -> phase[p] = Phase.WANTS_FIRST;
      case WANTS_FIRST -> {
        holder[firstFork(p)] = p;
        phase[p] = Phase.WANTS_SECOND;
      }
      case WANTS_SECOND -> {
        holder[secondFork(p)] = p;
        phase[p] = Phase.EATING;
      }
      case EATING -> {
        phase[p] = Phase.THINKING;
        putBack(firstFork(p), p);
        putBack(secondFork(p), p);
      }
    }
  }

  private void putBack(int fork, int p) {
    holder[fork] = NOBODY;
    int other = neighbourAt(fork, p);
    if (wanted(other) == fork) {
      sentTo[fork] = other;
      sentBy[fork] = p;
    }
  }

  private void deliver(int fork) {
    int to = sentTo[fork];
    sentTo[fork] = NOBODY;
    sentBy[fork] = NOBODY;
    holder[fork] = to;
    phase[to] = phase[to] == Phase.WANTS_FIRST ? Phase.WANTS_SECOND : Phase.EATING;
  }

  /** What every philosopher declares now, in id order of the ring. */
  List<Philosopher> philosophers() {
    List<Philosopher> out = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      int fork = wanted(p);
      if (fork == NOBODY || free(fork)) {
        out.add(new Philosopher(id(p), phase[p], Activity.ACTIVE, List.of()));
      } else {
        int has = holder[fork] != NOBODY ? holder[fork] : sentTo[fork];
        // A fork on its way to p itself is answered by the message in transit; p still waits
        // for the sender, who is the one that "has" it until it arrives.
        int awaited = has == p ? sentBy[fork] : has;
        out.add(
            new Philosopher(
                id(p), phase[p], Activity.PASSIVE, List.of(new Wait(id(awaited), "fork-" + fork))));
      }
    }
    return out;
  }

  /** The table as a cut: every philosopher, and both channels between neighbours. */
  CutModel cut() {
    CutModel.Builder b = CutModel.builder();
    for (Philosopher ph : philosophers()) {
      b.worker(new CutModel.Worker(ph.id(), ph.activity(), ph.waits(), 0));
    }
    for (int p = 0; p < n; p++) {
      int q = right(p);
      if (q != p) {
        b.channel(id(p), id(q), inTransit(p, q), 8L * inTransit(p, q));
        b.channel(id(q), id(p), inTransit(q, p), 8L * inTransit(q, p));
      }
    }
    return b.build();
  }

  private int inTransit(int from, int to) {
    int count = 0;
    for (int fork = 0; fork < n; fork++) {
      if (sentTo[fork] == to && sentBy[fork] == from) {
        count++;
      }
    }
    return count;
  }
}
