package io.cutpoint.ops.demo.deadlock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Philosophers wired to a simulated network of FIFO channels and to simulated timers, advanced one
 * seeded random event at a time (a message delivered, or a timer fired). No threads, no clock.
 */
final class SimulatedTable {

  private record Pending(String from, byte[] payload) {}

  final List<Philosopher> philosophers;
  private final Map<String, Deque<Pending>> channels = new LinkedHashMap<>(); // "from->to"
  private final List<Runnable> timers = new ArrayList<>();
  private final SplittableRandom random;
  private final Map<String, Long> received = new LinkedHashMap<>();

  SimulatedTable(List<Philosopher> philosophers, long seed) {
    this.philosophers = philosophers;
    this.random = new SplittableRandom(seed);
    for (Philosopher p : philosophers) {
      String from = p.id();
      p.wire(
          (to, payload) ->
              channels
                  .computeIfAbsent(from + "->" + to, k -> new ArrayDeque<>())
                  .add(new Pending(from, payload)),
          (millis, action) -> timers.add(action));
    }
  }

  static SimulatedTable of(
      int n, double fatalChance, long meals, boolean hungryAtStart, long seed) {
    List<Philosopher> list =
        new DiningTable.Options(
                n, fatalChance, meals, new Philosopher.Timing(5, 5, 1, hungryAtStart), seed)
            .philosopherList();
    return new SimulatedTable(list, seed);
  }

  void begin() {
    philosophers.forEach(Philosopher::begin);
  }

  /** Makes one random move; false when none is possible. */
  boolean step() {
    List<String> busy =
        channels.entrySet().stream()
            .filter(e -> !e.getValue().isEmpty())
            .map(Map.Entry::getKey)
            .toList();
    int moves = busy.size() + timers.size();
    if (moves == 0) {
      return false;
    }
    int pick = random.nextInt(moves);
    if (pick < busy.size()) {
      String channel = busy.get(pick);
      Pending m = channels.get(channel).poll();
      String to = channel.substring(channel.indexOf("->") + 2);
      long seq = received.merge(channel, 1L, Long::sum);
      philosopher(to).onMessage(m.from(), seq, m.payload());
    } else {
      timers.remove(pick - busy.size()).run();
    }
    return true;
  }

  /** Steps until nothing can move or {@code max} steps were made; returns the steps made. */
  int run(int max) {
    int steps = 0;
    while (steps < max && step()) {
      steps++;
    }
    return steps;
  }

  Philosopher philosopher(String id) {
    return philosophers.get(Integer.parseInt(id.substring(1)));
  }

  /** Messages in transit on {@code from->to}. */
  int inTransit(String from, String to) {
    Deque<Pending> q = channels.get(from + "->" + to);
    return q == null ? 0 : q.size();
  }

  int inTransit() {
    return channels.values().stream().mapToInt(Deque::size).sum();
  }
}
