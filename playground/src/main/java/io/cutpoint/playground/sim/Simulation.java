package io.cutpoint.playground.sim;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.engine.EngineOptions;
import io.cutpoint.client.engine.EngineOutput;
import io.cutpoint.client.engine.SnapshotEngine;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * A bank of processes that move money to each other over channels, each process with its own
 * production {@link SnapshotEngine}, driven by a seeded discrete-event clock in simulated
 * milliseconds. Nothing here reads a clock or a thread: the same seed and the same calls give the
 * same run, on the JVM and compiled to JavaScript in the playground.
 *
 * <p>Channels are FIFO unless {@link #setFifo} turns that off: then a marker travels on its own and
 * data messages may overtake it or be overtaken (data messages keep their order among themselves,
 * as the engine numbers them). A marker sent on a non-FIFO channel carries no sender count, so the
 * engine cannot refuse it and the broken cut reaches the verifier.
 */
public final class Simulation {

  /** Money each process starts with. */
  public static final long START_BALANCE = 100;

  /** Runs kept for display; older finished ones are dropped (their counts stay). */
  private static final int KEPT_RUNS = 300;

  private final ProcessGraph topology;
  private final String[] names;
  private final SnapshotEngine[] engines;
  private final long[] balance;
  private final long[] nextSendAt;
  private final Set<String> workers = new TreeSet<>();
  private final Set<ChannelId> channels = new TreeSet<>();
  private final Map<ChannelId, Long> delay = new LinkedHashMap<>();
  private final Map<ChannelId, Long> lastArrival = new LinkedHashMap<>();
  private final Map<ChannelId, Long> lastDataArrival = new LinkedHashMap<>();
  private final PriorityQueue<Transit> queue = new PriorityQueue<>(Transit::byArrival);
  private final Map<Long, SnapshotRun> runs = new LinkedHashMap<>();
  private final History history = new History();
  private final Rng rng;
  private final long money;
  private long now;
  private long order;
  private long nextId = 1;
  private double rate = 2;
  private boolean fifo = true;
  private long consistent;
  private long inconsistent;
  private long failed;
  private String lastError = "";

  /**
   * @param topology a connected topology
   * @param seed names the run: delays, send times, amounts and targets all come from it
   * @param delayMs mean delay of every channel, in simulated milliseconds
   */
  public Simulation(ProcessGraph topology, long seed, long delayMs) {
    if (!topology.connected()) {
      throw new IllegalArgumentException(
          "the topology is not connected: a marker could not reach every process");
    }
    this.topology = topology;
    this.rng = new Rng(seed);
    int n = topology.size();
    names = new String[n];
    engines = new SnapshotEngine[n];
    balance = new long[n];
    nextSendAt = new long[n];
    for (int i = 0; i < n; i++) {
      names[i] = ProcessGraph.name(i);
      workers.add(names[i]);
    }
    for (int i = 0; i < n; i++) {
      List<String> peers = new ArrayList<>();
      for (int j : topology.neighbours(i)) {
        peers.add(names[j]);
        channels.add(ChannelId.of(names[i], names[j]));
      }
      engines[i] =
          new SnapshotEngine(
              names[i],
              peers,
              peers,
              capture(i),
              new Output(i),
              EngineOptions.defaults().withNanoClock(() -> now * 1_000_000L));
      balance[i] = START_BALANCE;
    }
    for (ChannelId c : channels) {
      delay.put(c, Math.max(1, delayMs));
    }
    money = START_BALANCE * n;
    scheduleAllSends();
  }

  // ---------------------------------------------------------------- parameters

  /** Transfers per simulated second, per process; 0 stops the traffic. */
  public void setRate(double perSecond) {
    if (!(perSecond >= 0) || perSecond > 1000) {
      throw new IllegalArgumentException(
          "the message rate is 0 to 1000 per second, got " + perSecond);
    }
    rate = perSecond;
    scheduleAllSends();
  }

  public void setFifo(boolean on) {
    fifo = on;
  }

  /**
   * Mean delay of one channel ({@code from -> to}), or of every channel when {@code from} is null.
   */
  public void setDelay(String from, String to, long ms) {
    if (ms < 1 || ms > 60_000) {
      throw new IllegalArgumentException("a channel delay is 1 to 60000 ms, got " + ms);
    }
    if (from == null) {
      delay.replaceAll((c, d) -> ms);
      return;
    }
    ChannelId c = ChannelId.of(from, to);
    if (!delay.containsKey(c)) {
      throw new IllegalArgumentException("no channel " + c);
    }
    delay.put(c, ms);
  }

  // ---------------------------------------------------------------- time

  /** Runs every event up to {@code now + ms}. */
  public void advance(long ms) {
    long until = now + Math.max(0, ms);
    while (nextEventAt() <= until) {
      step();
    }
    now = until;
  }

  /** Runs the next event (a send or an arrival); returns its time. */
  public long step() {
    long at = nextEventAt();
    if (at == Long.MAX_VALUE) {
      return now;
    }
    now = at;
    Transit t = queue.peek();
    if (t != null && t.arriveAt() == at) {
      queue.poll();
      arrive(t);
      return at;
    }
    for (int i = 0; i < nextSendAt.length; i++) {
      if (nextSendAt[i] == at) {
        transfer(i);
        nextSendAt[i] = nextSend();
        return at;
      }
    }
    return at;
  }

  private long nextEventAt() {
    long at = queue.isEmpty() ? Long.MAX_VALUE : queue.peek().arriveAt();
    for (long s : nextSendAt) {
      at = Math.min(at, s);
    }
    return at;
  }

  private void scheduleAllSends() {
    for (int i = 0; i < nextSendAt.length; i++) {
      nextSendAt[i] = nextSend();
    }
  }

  private long nextSend() {
    if (rate <= 0) {
      return Long.MAX_VALUE;
    }
    return now + Math.max(1, Math.round(1000.0 / rate * (0.5 + rng.nextDouble())));
  }

  private void transfer(int i) {
    List<Integer> peers = topology.neighbours(i);
    if (balance[i] <= 0 || peers.isEmpty()) {
      return;
    }
    String to = names[peers.get(rng.nextInt(peers.size()))];
    int amount = 1 + rng.nextInt((int) Math.min(balance[i], 20));
    long seq = engines[i].send(to, Money.encode(amount));
    balance[i] -= amount;
    enqueue(names[i], to, false, seq, amount, 0, -1, false);
  }

  private void enqueue(
      String from,
      String to,
      boolean marker,
      long seq,
      int amount,
      long snapshotId,
      long sentCount,
      boolean replay) {
    ChannelId c = ChannelId.of(from, to);
    long arrive = now + Math.max(1, Math.round(delay.get(c) * (0.5 + rng.nextDouble())));
    if (fifo) {
      arrive = Math.max(arrive, lastArrival.getOrDefault(c, 0L));
    } else if (!marker) {
      arrive = Math.max(arrive, lastDataArrival.getOrDefault(c, 0L));
    }
    lastArrival.merge(c, arrive, Math::max);
    if (!marker) {
      lastDataArrival.merge(c, arrive, Math::max);
    }
    queue.add(
        new Transit(
            order++, from, to, marker, seq, amount, snapshotId, sentCount, now, arrive, replay));
  }

  private void arrive(Transit t) {
    SnapshotEngine engine = engines[index(t.to())];
    try {
      if (t.marker()) {
        engine.onMarker(t.from(), t.snapshotId(), t.sentCount());
      } else {
        engine.onData(t.from(), t.seq(), Money.encode(t.amount()));
      }
    } catch (RuntimeException e) {
      lastError = e.getMessage();
    }
    history.delivered(t, now);
  }

  // ---------------------------------------------------------------- snapshots

  /** Starts a new snapshot at the given initiators (one id, several initiators); returns its id. */
  public long snapshot(List<String> initiators) {
    if (initiators.isEmpty()) {
      throw new IllegalArgumentException("a snapshot needs at least one initiator");
    }
    for (String p : initiators) {
      index(p);
    }
    long id = nextId++;
    runs.put(id, new SnapshotRun(id, initiators, now));
    for (String p : initiators) {
      engines[index(p)].tryStartSnapshot(id);
    }
    trimRuns();
    return id;
  }

  /** Starts a snapshot at a process the seed picks. */
  public long snapshotAnywhere() {
    return snapshot(List.of(names[rng.nextInt(names.length)]));
  }

  /**
   * Starts {@code count} snapshots from random processes, {@code spacingMs} apart (so that several
   * are in flight at once), then runs until each has finished or a simulated hour has passed.
   * Returns how many of them were consistent.
   */
  public int batch(int count, long spacingMs) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(snapshotAnywhere());
      advance(spacingMs);
    }
    long deadline = now + 3_600_000;
    while (now < deadline && anyRecording(ids)) {
      advance(100);
    }
    int ok = 0;
    for (long id : ids) {
      SnapshotRun r = runs.get(id);
      if (r != null && r.status() == SnapshotRun.Status.CONSISTENT) {
        ok++;
      }
    }
    return ok;
  }

  private boolean anyRecording(List<Long> ids) {
    for (long id : ids) {
      SnapshotRun r = runs.get(id);
      if (r != null && r.status() == SnapshotRun.Status.RECORDING) {
        return true;
      }
    }
    return false;
  }

  private void trimRuns() {
    Iterator<SnapshotRun> it = runs.values().iterator();
    while (runs.size() > KEPT_RUNS && it.hasNext()) {
      if (it.next().status() != SnapshotRun.Status.RECORDING) {
        it.remove();
      }
    }
  }

  /**
   * Rolls every process back to snapshot {@code id}: balances and channel counters from the cut,
   * the channels emptied, every in-flight snapshot aborted, and the messages the cut recorded in
   * transit put back on their channels, to arrive again ahead of new traffic.
   *
   * @throws IllegalStateException when that snapshot is not a consistent cut
   */
  public void rollback(long id) {
    SnapshotRun run = runs.get(id);
    if (run == null || run.status() != SnapshotRun.Status.CONSISTENT) {
      throw new IllegalStateException(
          "snapshot "
              + id
              + " is "
              + (run == null ? "unknown" : run.status().name().toLowerCase(java.util.Locale.ROOT))
              + ": only a consistent cut can be rolled back to");
    }
    queue.clear();
    lastArrival.clear();
    lastDataArrival.clear();
    for (SnapshotRun r : runs.values()) {
      r.fail("aborted by the rollback to snapshot " + id, now, SnapshotRun.Status.ABORTED);
    }
    for (int i = 0; i < names.length; i++) {
      CompletedLocalSnapshot piece = run.pieces().get(names[i]);
      balance[i] = Money.decode(piece.state().state());
      engines[i].restore(piece.cut().sent(), piece.cut().received());
    }
    for (int i = 0; i < names.length; i++) {
      CompletedLocalSnapshot piece = run.pieces().get(names[i]);
      piece
          .cut()
          .recordings()
          .forEach(
              (from, messages) -> {
                for (InTransitMessage m : messages) {
                  enqueue(
                      from,
                      names[index(piece.cut().workerId())],
                      false,
                      m.seq(),
                      (int) Money.decode(m.payload()),
                      0,
                      -1,
                      true);
                }
              });
    }
    history.rolledBack(id, now);
  }

  // ---------------------------------------------------------------- engine callbacks

  private io.cutpoint.client.engine.StateCapture capture(int i) {
    return snapshotId -> {
      history.captured(names[i], snapshotId, now);
      return CapturedState.of(Money.encode(balance[i]));
    };
  }

  private final class Output implements EngineOutput {
    private final int i;

    Output(int i) {
      this.i = i;
    }

    @Override
    public void sendMarker(String to, long snapshotId, long sentCount) {
      enqueue(names[i], to, true, 0, 0, snapshotId, fifo ? sentCount : -1, false);
    }

    @Override
    public void deliver(String from, long seq, byte[] payload) {
      balance[i] += Money.decode(payload);
    }

    @Override
    public void completed(CompletedLocalSnapshot snapshot) {
      SnapshotRun run = runs.get(snapshot.cut().snapshotId());
      if (run != null && run.add(snapshot, workers, channels, money, now)) {
        if (run.status() == SnapshotRun.Status.CONSISTENT) {
          consistent++;
        } else {
          inconsistent++;
        }
      }
    }

    @Override
    public void failed(long snapshotId, String reason) {
      SnapshotRun run = runs.get(snapshotId);
      if (run != null && run.status() == SnapshotRun.Status.RECORDING) {
        run.fail(reason, now, SnapshotRun.Status.FAILED);
        failed++;
      }
    }
  }

  private int index(String process) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(process)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no process " + process);
  }

  // ---------------------------------------------------------------- reading

  public long now() {
    return now;
  }

  public ProcessGraph topology() {
    return topology;
  }

  public List<String> processes() {
    return List.of(names);
  }

  public long balance(String process) {
    return balance[index(process)];
  }

  /** Snapshots process {@code p} is recording now. */
  public int recording(String process) {
    return engines[index(process)].inFlightCount();
  }

  public long money() {
    return money;
  }

  /** Money held by the processes plus money on the channels: always {@link #money()}. */
  public long moneyNow() {
    long sum = 0;
    for (long b : balance) {
      sum += b;
    }
    for (Transit t : queue) {
      sum += t.amount();
    }
    return sum;
  }

  public double rate() {
    return rate;
  }

  public boolean fifo() {
    return fifo;
  }

  public Map<ChannelId, Long> delays() {
    return delay;
  }

  /** What is on the channels now, in no particular order. */
  public Iterable<Transit> inTransit() {
    return queue;
  }

  public History history() {
    return history;
  }

  /**
   * Snapshots, oldest first (the most recent {@value #KEPT_RUNS} finished ones and all in flight).
   */
  public Iterable<SnapshotRun> runs() {
    return runs.values();
  }

  public SnapshotRun run(long id) {
    return runs.get(id);
  }

  public long consistentCount() {
    return consistent;
  }

  public long inconsistentCount() {
    return inconsistent;
  }

  public long failedCount() {
    return failed;
  }

  /** The last refusal of an engine (empty when none): with FIFO on there is none. */
  public String lastError() {
    return lastError;
  }
}
