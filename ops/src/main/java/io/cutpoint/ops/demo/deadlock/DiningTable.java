package io.cutpoint.ops.demo.deadlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The dining table: one {@link PhilosopherNode} per philosopher, joined to one coordinator, and the
 * table's own ground truth (read from the philosophers, not from any snapshot), against which the
 * demo and the tests check what the analysis of a snapshot says.
 */
public final class DiningTable implements AutoCloseable {

  /**
   * Settings of a table.
   *
   * @param meals meals each philosopher eats ({@link Philosopher#UNLIMITED} for no limit)
   * @param fatalChance chance, per meal of the last philosopher, of the fatal (left first) order
   */
  public record Options(
      int philosophers, double fatalChance, long meals, Philosopher.Timing timing, long seed) {
    public Options {
      if (philosophers < 2) {
        throw new IllegalArgumentException(
            "--philosophers must be at least 2, got " + philosophers);
      }
      if (!(fatalChance >= 0 && fatalChance <= 1)) {
        throw new IllegalArgumentException(
            "--fatal-chance must be between 0 and 1, got " + fatalChance);
      }
      if (meals < 0) {
        throw new IllegalArgumentException("--meals must not be negative, got " + meals);
      }
    }

    /** The philosophers these options describe, each with its own seed. */
    public List<Philosopher> philosopherList() {
      List<Philosopher> list = new ArrayList<>();
      for (int i = 0; i < philosophers; i++) {
        list.add(
            new Philosopher(i, philosophers, meals, fatalChance, timing, seed * 1_000_003L + i));
      }
      return list;
    }
  }

  private final List<PhilosopherNode> nodes = new ArrayList<>();
  private final ScheduledExecutorService timers;

  private DiningTable() {
    this.timers =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cutpoint-table-timers");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts a worker for each philosopher (in order: {@code p0, p1, ...}) against {@code
   * coordinator} and waits until all joined. The meals start with {@link #begin()}.
   */
  public static DiningTable start(
      List<Philosopher> philosophers, String coordinator, Duration joinTimeout)
      throws InterruptedException, TimeoutException {
    return start(philosophers, coordinator, joinTimeout, true);
  }

  /**
   * As {@link #start(List, String, Duration)}, the workers taking markers as they read them ({@code
   * markersAhead}, the default) or in their turn behind the data before them.
   */
  public static DiningTable start(
      List<Philosopher> philosophers,
      String coordinator,
      Duration joinTimeout,
      boolean markersAhead)
      throws InterruptedException, TimeoutException {
    DiningTable t = new DiningTable();
    try {
      int n = philosophers.size();
      for (int i = 0; i < n; i++) {
        t.nodes.add(
            PhilosopherNode.start(philosophers.get(i), i, n, coordinator, t.timers, markersAhead));
      }
      CompletableFuture<?>[] joins =
          t.nodes.stream().map(PhilosopherNode::joined).toArray(CompletableFuture[]::new);
      await(CompletableFuture.allOf(joins), joinTimeout, "the philosophers to join " + coordinator);
      return t;
    } catch (RuntimeException | InterruptedException | TimeoutException e) {
      t.close();
      throw e;
    }
  }

  public List<PhilosopherNode> nodes() {
    return nodes;
  }

  public PhilosopherNode node(int index) {
    return nodes.get(index);
  }

  public int size() {
    return nodes.size();
  }

  /** Every philosopher starts its meals. */
  public void begin() {
    for (PhilosopherNode n : nodes) {
      n.begin();
    }
  }

  /** Every philosopher's status, each read on its own event thread (not at one instant). */
  public List<Philosopher.Status> statuses(Duration timeout)
      throws InterruptedException, TimeoutException {
    List<CompletableFuture<Philosopher.Status>> reads = new ArrayList<>();
    for (PhilosopherNode n : nodes) {
      reads.add(n.status());
    }
    List<Philosopher.Status> out = new ArrayList<>();
    for (int i = 0; i < reads.size(); i++) {
      out.add(await(reads.get(i), timeout, "the status of " + nodes.get(i).id()));
    }
    return out;
  }

  /**
   * Ground truth for deadlock: every philosopher holds its first fork and waits for its second, in
   * two rounds of reads with no meal eaten in between. A philosopher that waits for its second fork
   * in both rounds with the same meal count waited all along (it leaves that phase only by eating),
   * and every first read precedes every second read, so at one instant all of them held a first
   * fork and waited. A fork has one holder, so then all {@code n} forks were held as first forks,
   * in use until their holders eat; no second fork can ever come, and the table is stuck.
   */
  public boolean stuck(Duration timeout) throws InterruptedException, TimeoutException {
    List<Philosopher.Status> before = statuses(timeout);
    if (!allWaitForSecond(before)) {
      return false;
    }
    List<Philosopher.Status> after = statuses(timeout);
    if (!allWaitForSecond(after)) {
      return false;
    }
    for (int i = 0; i < before.size(); i++) {
      if (before.get(i).eaten() != after.get(i).eaten()) {
        return false;
      }
    }
    return true;
  }

  private static boolean allWaitForSecond(List<Philosopher.Status> statuses) {
    return statuses.stream().allMatch(s -> s.phase() == Philosopher.Phase.WANTS_SECOND);
  }

  /**
   * Ground truth for termination: every philosopher ate all its meals. Being done is final, and a
   * fork or a request is only ever in transit for a philosopher that is not done, so then nothing
   * is in transit either.
   */
  public boolean finished(Duration timeout) throws InterruptedException, TimeoutException {
    return statuses(timeout).stream().allMatch(s -> s.phase() == Philosopher.Phase.DONE);
  }

  /** Meals eaten so far (racy: for display). */
  public long mealsEaten(Duration timeout) throws InterruptedException, TimeoutException {
    return statuses(timeout).stream().mapToLong(Philosopher.Status::eaten).sum();
  }

  private static <T> T await(CompletableFuture<T> f, Duration timeout, String what)
      throws InterruptedException, TimeoutException {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "waiting for " + what + ": " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new TimeoutException(
          "gave up waiting for " + what + " after " + timeout.toMillis() + "ms");
    }
  }

  /** Stops the timers and every worker; safe to call twice. */
  @Override
  public void close() {
    timers.shutdownNow();
    try {
      timers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (PhilosopherNode n : nodes) {
      n.close();
    }
    nodes.clear();
  }
}
