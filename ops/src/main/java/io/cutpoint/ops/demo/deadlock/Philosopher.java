package io.cutpoint.ops.demo.deadlock;

import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CapturedState.Activity;
import io.cutpoint.client.engine.CapturedState.WaitFor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One dining philosopher, as the application logic of a worker: pure (no I/O, no threads), driven
 * by messages, by timers it asks for, and by {@link #begin()}.
 *
 * <p>{@code n} philosophers {@code p0..p(n-1)} sit in a ring. Fork {@code k} lies between {@code
 * p(k-1)} and {@code pk}: it is the <em>left</em> fork of {@code pk} and the <em>right</em> fork of
 * {@code p(k-1)}. At the start each philosopher holds its left fork. A fork is a token: it is held
 * by one of its two philosophers or is in transit between them. A philosopher that wants a fork it
 * does not hold sends {@code REQUEST(k)} to the neighbour sharing it; the neighbour answers {@code
 * FORK(k)} at once if it is not using the fork, or after its meal if it is. A fork is <em>in
 * use</em> while its holder eats, or while it holds it as its first fork and still needs its
 * second. (Because channels are FIFO and forks only move on request, a request always finds the
 * fork at the receiver.)
 *
 * <p>A meal: think, get hungry, acquire the first fork, reach for the second after {@code
 * grabDelay}, acquire it, eat, put both back (handing each to a neighbour that asked for it
 * meanwhile). The order: the <em>fatal</em> order is left fork first for everybody, which deadlocks
 * when all hold their left fork at once; the <em>safe</em> order takes the lower-numbered fork
 * first (only the last philosopher, whose right fork is fork 0, differs), a global order on
 * resources, which cannot deadlock. The last philosopher draws the order for each meal: fatal with
 * probability {@code fatalChance}.
 *
 * <p>What it declares when its state is captured ({@link #captureState}): waiting for fork {@code
 * k} (requested, not arrived) is {@code PASSIVE} with one wait on the neighbour sharing {@code k},
 * resource {@code fork-k}; done with all its meals is {@code PASSIVE} with no wait; anything else
 * (thinking, holding its first fork before reaching for the second, eating) is {@code ACTIVE},
 * since it will act without a message. One exception keeps the declarations true to the wait-for
 * model, in which a blocked worker sends nothing until its waits are answered: a philosopher
 * waiting for its <em>first</em> fork while it holds its (unused) second one would still hand that
 * fork to a neighbour who asks, so it declares no wait then ({@code PASSIVE}). Declaring it would
 * let a request in transit to it close a cycle that is no deadlock.
 */
public final class Philosopher implements StateHandler, MessageHandler {

  /** Where a philosopher is in its meal. */
  public enum Phase {
    THINKING,
    /** Hungry, waiting for its first fork. */
    WANTS_FIRST,
    /** Holds its first fork, reaching for the second (a delay, then a request if needed). */
    HOLDS_FIRST,
    /** Holds its first fork, waiting for the second. */
    WANTS_SECOND,
    EATING,
    /** Ate every planned meal; only answers requests now. */
    DONE
  }

  /** Sends a message to a neighbour. */
  @FunctionalInterface
  public interface Outbox {
    void send(String to, byte[] payload);
  }

  /** Runs {@code action} after {@code millis}, on the philosopher's thread. */
  @FunctionalInterface
  public interface Timers {
    void after(long millis, Runnable action);
  }

  /** A summary of the state, for ground truth and display. */
  public record Status(String id, Phase phase, long eaten, int waitingForFork) {}

  static final byte REQUEST = 1;
  static final byte FORK = 2;

  /** Meals planned when there is no limit. */
  public static final long UNLIMITED = Long.MAX_VALUE;

  private final int index;
  private final int n;
  private final long meals;
  private final double fatalChance;
  private final Timing timing;
  private final SplittableRandom random;
  private Outbox outbox =
      (to, p) -> {
        throw new IllegalStateException("the philosopher is not wired to a worker yet");
      };
  private Timers timers =
      (ms, a) -> {
        throw new IllegalStateException("the philosopher is not wired to a worker yet");
      };

  // The state that a snapshot captures.
  private Phase phase = Phase.THINKING;
  private long eaten;
  private int first = -1;
  private int second = -1;
  private final boolean[] held = new boolean[2]; // [left, right]
  private final boolean[] requested = new boolean[2];
  private final boolean[] deferred = new boolean[2];

  /** Bumped on restore: timers of an older generation do nothing. */
  private long generation;

  private long fatalMeals;
  private boolean begun;

  /**
   * Delays, in milliseconds, drawn uniformly from {@code [0, max]}; {@code hungryAtStart} skips the
   * first thinking so that everybody reaches for forks at once.
   */
  public record Timing(long thinkMaxMs, long eatMaxMs, long grabDelayMs, boolean hungryAtStart) {
    public Timing {
      if (thinkMaxMs < 0 || eatMaxMs < 0 || grabDelayMs < 0) {
        throw new IllegalArgumentException("delays must not be negative");
      }
    }
  }

  /**
   * Philosopher {@code index} of {@code n}; {@code meals} planned ({@link #UNLIMITED} for no limit,
   * 0 for none).
   */
  public Philosopher(int index, int n, long meals, double fatalChance, Timing timing, long seed) {
    if (n < 2) {
      throw new IllegalArgumentException("a table needs at least 2 philosophers, got " + n);
    }
    if (index < 0 || index >= n) {
      throw new IllegalArgumentException("philosopher " + index + " is not at a table of " + n);
    }
    if (meals < 0) {
      throw new IllegalArgumentException("meals must not be negative, got " + meals);
    }
    if (!(fatalChance >= 0 && fatalChance <= 1)) {
      throw new IllegalArgumentException("the fatal chance must be in [0, 1], got " + fatalChance);
    }
    this.index = index;
    this.n = n;
    this.meals = meals;
    this.fatalChance = fatalChance;
    this.timing = timing;
    this.random = new SplittableRandom(seed);
    this.held[0] = true;
    if (meals == 0) {
      phase = Phase.DONE;
    } else if (timing.hungryAtStart()) {
      hungry();
    }
  }

  /** Where messages go and timers run; call before {@link #begin()}. */
  public void wire(Outbox out, Timers t) {
    this.outbox = out;
    this.timers = t;
  }

  public static String id(int index) {
    return "p" + index;
  }

  public String id() {
    return id(index);
  }

  /** The neighbours: to the left (shares the left fork) and to the right. */
  public static List<String> neighbours(int index, int n) {
    return List.of(id((index + n - 1) % n), id((index + 1) % n));
  }

  /** Starts the meals (call on the philosopher's thread once the worker runs). */
  public void begin() {
    begun = true;
    switch (phase) {
      case THINKING -> thinkThenEat();
      case WANTS_FIRST -> askUnlessAsked(first);
      case HOLDS_FIRST -> reachLater();
      case WANTS_SECOND -> askUnlessAsked(second);
      default -> {
        // Eating (restore restarts its timer) or done: nothing to start.
      }
    }
  }

  private void thinkThenEat() {
    long g = generation;
    timers.after(
        draw(timing.thinkMaxMs()),
        () -> {
          if (g == generation && phase == Phase.THINKING) {
            hungry();
          }
        });
  }

  private void askUnlessAsked(int fork) {
    if (!requested[side(fork)]) {
      ask(fork);
    }
  }

  // ---- the meal ------------------------------------------------------------------------------

  private void hungry() {
    int left = index;
    int right = (index + 1) % n;
    boolean fatal = index < n - 1 || random.nextDouble() < fatalChance;
    if (index == n - 1 && fatal) {
      fatalMeals++;
    }
    first = fatal ? left : Math.min(left, right);
    second = first == left ? right : left;
    phase = holds(first) ? Phase.HOLDS_FIRST : Phase.WANTS_FIRST;
    if (!begun) {
      return; // hungry at the start: begin() asks or reaches
    }
    if (phase == Phase.HOLDS_FIRST) {
      reachLater();
    } else {
      ask(first);
    }
  }

  private void reachLater() {
    long g = generation;
    timers.after(
        timing.grabDelayMs(),
        () -> {
          if (g == generation && phase == Phase.HOLDS_FIRST) {
            reachForSecond();
          }
        });
  }

  private void reachForSecond() {
    if (holds(second)) {
      eat();
    } else {
      phase = Phase.WANTS_SECOND;
      ask(second);
    }
  }

  private void eat() {
    phase = Phase.EATING;
    long g = generation;
    timers.after(
        draw(timing.eatMaxMs()),
        () -> {
          if (g == generation && phase == Phase.EATING) {
            finishMeal();
          }
        });
  }

  private void finishMeal() {
    eaten++;
    first = -1;
    second = -1;
    for (int side = 0; side < 2; side++) {
      if (deferred[side]) {
        give(side);
      }
    }
    if (eaten >= meals) {
      phase = Phase.DONE;
      return;
    }
    phase = Phase.THINKING;
    thinkThenEat();
  }

  // ---- forks and messages ----------------------------------------------------------------------

  @Override
  public void onMessage(String from, long seq, byte[] payload) {
    if (payload.length != 5) {
      throw new IllegalArgumentException(
          id()
              + ": a message of "
              + payload.length
              + " bytes from "
              + from
              + " is not a fork message (5 bytes)");
    }
    int fork =
        ((payload[1] & 0xff) << 24)
            | ((payload[2] & 0xff) << 16)
            | ((payload[3] & 0xff) << 8)
            | (payload[4] & 0xff);
    int side = side(fork);
    switch (payload[0]) {
      case REQUEST -> requested(side);
      case FORK -> arrived(side);
      default ->
          throw new IllegalArgumentException(
              id() + ": unknown message type " + payload[0] + " from " + from);
    }
  }

  private void requested(int side) {
    if (!held[side]) {
      throw new IllegalStateException(
          id() + " was asked for fork-" + fork(side) + ", which it does not hold");
    }
    if (inUse(fork(side))) {
      deferred[side] = true;
    } else {
      give(side);
    }
  }

  private void arrived(int side) {
    held[side] = true;
    requested[side] = false;
    int fork = fork(side);
    if (phase == Phase.WANTS_FIRST && fork == first) {
      phase = Phase.HOLDS_FIRST;
      reachLater();
    } else if (phase == Phase.WANTS_SECOND && fork == second) {
      eat();
    }
  }

  private boolean inUse(int fork) {
    return phase == Phase.EATING
        || ((phase == Phase.HOLDS_FIRST || phase == Phase.WANTS_SECOND) && fork == first);
  }

  private void ask(int fork) {
    int side = side(fork);
    requested[side] = true;
    outbox.send(holderSide(side), message(REQUEST, fork));
  }

  private void give(int side) {
    held[side] = false;
    deferred[side] = false;
    outbox.send(holderSide(side), message(FORK, fork(side)));
  }

  private boolean holds(int fork) {
    return held[side(fork)];
  }

  /** 0 for the left fork, 1 for the right one. */
  private int side(int fork) {
    if (fork == index) {
      return 0;
    }
    if (fork == (index + 1) % n) {
      return 1;
    }
    throw new IllegalArgumentException(
        id()
            + " has no fork-"
            + fork
            + " (only fork-"
            + index
            + " and fork-"
            + (index + 1) % n
            + ")");
  }

  private int fork(int side) {
    return side == 0 ? index : (index + 1) % n;
  }

  /** The neighbour sharing the fork on {@code side}. */
  private String holderSide(int side) {
    return side == 0 ? id((index + n - 1) % n) : id((index + 1) % n);
  }

  static byte[] message(byte type, int fork) {
    return new byte[] {
      type, (byte) (fork >>> 24), (byte) (fork >>> 16), (byte) (fork >>> 8), (byte) fork
    };
  }

  private long draw(long max) {
    return max == 0 ? 0 : random.nextLong(max + 1);
  }

  // ---- what it says about itself -------------------------------------------------------------

  public Status status() {
    int waiting = waitingFork();
    return new Status(id(), phase, eaten, waiting);
  }

  /** The fork it waits for (requested, not arrived), or -1. */
  private int waitingFork() {
    if (phase == Phase.WANTS_FIRST) {
      return first;
    }
    if (phase == Phase.WANTS_SECOND) {
      return second;
    }
    return -1;
  }

  /** Meals for which the last philosopher drew the fatal order. */
  public long fatalMeals() {
    return fatalMeals;
  }

  @Override
  public CapturedState captureState(long snapshotId) {
    int fork = waitingFork();
    if (phase == Phase.WANTS_FIRST && holds(second)) {
      // Not blocked in the wait-for sense: it hands its unused second fork to whoever asks.
      return new CapturedState(capture(), Activity.PASSIVE, List.of());
    }
    if (fork >= 0) {
      return new CapturedState(
          capture(),
          Activity.PASSIVE,
          List.of(new WaitFor(holderSide(side(fork)), "fork-" + fork)));
    }
    return new CapturedState(
        capture(), phase == Phase.DONE ? Activity.PASSIVE : Activity.ACTIVE, List.of());
  }

  @Override
  public byte[] capture() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(phase.ordinal());
      out.writeLong(eaten);
      out.writeInt(first);
      out.writeInt(second);
      for (int side = 0; side < 2; side++) {
        out.writeBoolean(held[side]);
        out.writeBoolean(requested[side]);
        out.writeBoolean(deferred[side]);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Restores a captured state and restarts the timer its phase needs. */
  @Override
  public void restore(byte[] state) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
      Phase p = Phase.values()[in.readUnsignedByte()];
      long e = in.readLong();
      int f = in.readInt();
      int s = in.readInt();
      boolean[][] flags = new boolean[3][2];
      for (int side = 0; side < 2; side++) {
        flags[0][side] = in.readBoolean();
        flags[1][side] = in.readBoolean();
        flags[2][side] = in.readBoolean();
      }
      phase = p;
      eaten = e;
      first = f;
      second = s;
      for (int side = 0; side < 2; side++) {
        held[side] = flags[0][side];
        requested[side] = flags[1][side];
        deferred[side] = flags[2][side];
      }
    } catch (IOException | ArrayIndexOutOfBoundsException e) {
      throw new IllegalArgumentException(
          id() + ": not a philosopher's state (" + state.length + " bytes)", e);
    }
    generation++;
    if (phase == Phase.EATING) {
      eat();
    } else {
      begin();
    }
  }
}
