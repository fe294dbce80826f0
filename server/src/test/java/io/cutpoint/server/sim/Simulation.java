package io.cutpoint.client.sim;

import io.cutpoint.client.SimulatedWorker;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.sim.SimResult.Problem;
import io.cutpoint.client.sim.SimResult.ProblemKind;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.cut.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Runs one seeded worker-level schedule: a production {@code WorkerCore} per worker behind a
 * simulated transport ({@link SimulatedWorker}), a {@link BankApp} as each worker's application,
 * simulated coordinator sessions (FIFO, random delays, lost with their process), and {@link
 * SimCoordinator} in the coordinator's role. Random transfers, overlapping snapshots, rollbacks,
 * broken streams and workers lost and restarted fill the busy period; then the run goes on until
 * nothing is left to do, and the checks run:
 *
 * <ul>
 *   <li>every committed cut passes {@link CutVerifier} and conserves the bank's money (balances +
 *       recorded transfers = the total), and no cut fails the coordinator's check;
 *   <li>after every rollback, once every worker restored and before any resumed, the balances plus
 *       the recorded transfers waiting to be replayed hold all the money;
 *   <li>once quiet, after the last rollback, the balances add up to the total, every snapshot was
 *       committed or dropped by a rollback, and no worker is halted, recording, or holding
 *       unacknowledged or parked items;
 *   <li>the application is never handed a message of an old epoch except as a replay, each channel
 *       delivers every message once per epoch in sequence order, and in the end every message sent
 *       in the last epoch was delivered;
 *   <li>no core refused a stream for DATA_LOSS or MALFORMED: correct senders never earn it.
 * </ul>
 *
 * A schedule stops at its first problem (what follows is its consequence, often a loop of refused
 * streams); the committed cuts are checked all the same. It is a pure function of (topology, seed,
 * config, faults, variant).
 */
public final class Simulation {

  private static final long MAX_EVENTS = 500_000;

  /** The cluster's first epoch; a restarted process starts in epoch 0 until it is welcomed. */
  private static final long FIRST_EPOCH = 1;

  private final String scenario;
  private final Topology topology;
  private final long seed;
  private final SimConfig config;
  private final SimFaults faults;
  private final Variant variant;
  private final SplittableRandom random;
  private final SimNetwork network;
  private final SimCoordinator coordinator;
  private final SimulatedWorker.Options options;
  private final Map<String, Incarnation> current = new TreeMap<>();

  /** The incarnation whose session the coordinator knows, per worker (absent once lost). */
  private final Map<String, Incarnation> sessions = new TreeMap<>();

  private final List<Incarnation> all = new ArrayList<>();
  private final List<Problem> problems = new ArrayList<>();
  private final List<String> trace;
  private final SimulatedWorker.Network net;
  private final SimulatedWorker.Listener listener;
  private long notAnnounced;
  private long crashes;
  private long replayRaces;

  /** One process of a worker: its core and transport, its application, its session's pipes. */
  private static final class Incarnation {
    SimulatedWorker worker;
    BankApp app;
    boolean sessionUp = true;
    long lastDown;
    long lastUp;
  }

  public Simulation(
      String scenario,
      Topology topology,
      long seed,
      SimConfig config,
      SimFaults faults,
      Variant variant,
      boolean withTrace) {
    this.scenario = scenario;
    this.topology = topology;
    this.seed = seed;
    this.config = config;
    this.faults = faults;
    this.variant = variant;
    this.random = new SplittableRandom(seed);
    this.network = new SimNetwork(topology.channels(), random, config.maxDelay());
    this.trace = withTrace ? new ArrayList<>() : null;
    this.options =
        new SimulatedWorker.Options(
            1 + random.nextInt(4),
            1 + random.nextInt(8),
            faults.resendBeforeAckPercent(),
            switch (variant) {
              case NO_EPOCH_FENCING -> SimulatedWorker.BrokenCore.NO_EPOCH_FENCING;
              case REPLAY_AFTER_NEW_TRAFFIC -> SimulatedWorker.BrokenCore.REPLAY_AFTER_NEW_TRAFFIC;
              case NONE, EARLY_COMMIT -> SimulatedWorker.BrokenCore.NONE;
            });
    this.net = new Net();
    this.listener = new Reports();
    this.coordinator =
        new SimCoordinator(
            topology,
            FIRST_EPOCH,
            new Sessions(),
            random,
            config.maxChosenInitiators(),
            variant == Variant.EARLY_COMMIT,
            (id, violations) ->
                problem(
                    ProblemKind.CUT_VIOLATION,
                    id,
                    "the coordinator's CutVerifier check failed: " + violations));
    for (String id : topology.workers()) {
      start(id, FIRST_EPOCH);
    }
  }

  /** A schedule on a topology of {@code kind}, built from the seed too. */
  public static SimResult run(
      TopologyKind kind, long seed, SimConfig config, SimFaults faults, Variant variant) {
    return forKind(kind, seed, config, faults, variant, false).run();
  }

  public static Simulation forKind(
      TopologyKind kind,
      long seed,
      SimConfig config,
      SimFaults faults,
      Variant variant,
      boolean withTrace) {
    Topology t = kind.build(new SplittableRandom(seed ^ 0x5DEECE66DL), config.maxWorkers());
    return new Simulation(kind.name(), t, seed, config, faults, variant, withTrace);
  }

  private Incarnation start(String id, long epoch) {
    Incarnation inc = new Incarnation();
    inc.app =
        new BankApp(
            id,
            config.initialBalance(),
            List.copyOf(topology.outgoing(id)),
            random,
            config.forwardPercent(),
            (kind, message) -> problem(kind, null, message));
    inc.worker =
        new SimulatedWorker(
            id,
            topology.outgoing(id),
            topology.incoming(id),
            inc.app,
            inc.app,
            epoch,
            net,
            listener,
            options);
    inc.app.attach(inc.worker);
    current.put(id, inc);
    if (epoch == FIRST_EPOCH) {
      sessions.put(id, inc); // joined at the start
    }
    all.add(inc);
    inc.worker.start();
    return inc;
  }

  private void note(String line) {
    if (trace != null) {
      trace.add(network.now() + " " + line);
    }
  }

  private void problem(ProblemKind kind, Long snapshotId, String message) {
    note("PROBLEM " + kind + ": " + message);
    problems.add(new Problem(kind, snapshotId, message));
  }

  /** Runs the schedule to the end and checks it. */
  public SimResult run() {
    List<String> ids = List.copyOf(topology.workers());
    for (int i = 0; i < config.transfers(); i++) {
      String w = ids.get(random.nextInt(ids.size()));
      network.at(
          random.nextLong(config.horizon()),
          () -> {
            Incarnation inc = current.get(w);
            if (inc != null) {
              inc.app.transferAtRandom();
            }
          });
    }
    for (int i = 0; i < config.snapshots(); i++) {
      network.at(
          random.nextLong(config.horizon()),
          () ->
              note("trigger: " + (coordinator.trigger() ? "started" : "refused, a rollback runs")));
    }
    for (int i = 0; i < config.rollbacks(); i++) {
      long half = config.horizon() / 2;
      network.at(
          half + random.nextLong(half + 1),
          () ->
              note(
                  "rollback in epoch "
                      + coordinator.epoch()
                      + (coordinator.rollback() ? " started" : ": nothing committed")));
    }
    List<ChannelId> channels = List.copyOf(topology.channels());
    for (int i = 0; i < faults.reconnects() && !channels.isEmpty(); i++) {
      ChannelId c = channels.get(random.nextInt(channels.size()));
      network.at(
          random.nextLong(config.horizon()),
          () -> {
            Incarnation inc = current.get(c.from());
            if (inc != null) {
              inc.worker.breakStream(c.to());
            }
          });
    }
    if (random.nextInt(100) < faults.crashPercent()) {
      String w = ids.get(random.nextInt(ids.size()));
      long half = config.horizon() / 2;
      network.at(half + random.nextLong(half + 1), () -> crash(w));
    }
    long events = 0;
    try {
      while (events < MAX_EVENTS && problems.isEmpty() && network.step()) {
        events++; // a schedule stops at its first problem: what follows is its consequence
      }
      if (events >= MAX_EVENTS) {
        problem(ProblemKind.RUN, null, "no end after " + events + " events");
      }
    } catch (RuntimeException e) {
      problem(ProblemKind.ENGINE_ERROR, null, e.toString());
    }
    boolean ranToEnd = problems.isEmpty();
    SortedMap<Long, String> cuts = checkCommitted();
    if (ranToEnd) {
      checkQuiet();
    }
    return new SimResult(
        scenario,
        seed,
        variant == Variant.NONE ? "" : variant.name(),
        topology,
        stats(events),
        workerStats(),
        List.copyOf(problems),
        cuts,
        trace == null ? List.of() : List.copyOf(trace));
  }

  /** Loses {@code w}'s process; the coordinator notices, and a fresh process rejoins later. */
  private void crash(String w) {
    Incarnation inc = current.get(w);
    if (inc == null || coordinator.committed().isEmpty()) {
      note("crash of " + w + " skipped: " + (inc == null ? "it is down" : "nothing committed yet"));
      return;
    }
    crashes++;
    note(w + " is lost");
    inc.worker.crash();
    inc.sessionUp = false;
    current.remove(w);
    long noticed = network.now() + 2 * delay();
    network.at(
        noticed,
        () -> {
          sessions.remove(w);
          coordinator.lost(w);
        });
    network.at(
        network.now() + delay(),
        () -> {
          // a quick restart: peers may reach the fresh process before the coordinator halts them
          note(w + " restarts with a fresh state in epoch 0");
          Incarnation fresh = start(w, 0);
          fresh.lastUp = noticed; // its join reaches the coordinator after the loss
          up(
              fresh,
              () -> {
                sessions.put(w, fresh);
                coordinator.joined(w);
              });
        });
  }

  /** A channel's delay: 1 to maxDelay ticks. */
  private long delay() {
    return 1 + random.nextLong(Math.max(1, config.maxDelay()));
  }

  /**
   * A session's delay: 1 to 3 maxDelay ticks (a coordinator is further away than a peer), so that a
   * resumed worker's new traffic often reaches a peer that has not resumed yet.
   */
  private long sessionDelay() {
    return 1 + random.nextLong(Math.max(1, 3 * config.maxDelay()));
  }

  /** A command on {@code worker}'s session, FIFO; lost if that process dies first. */
  private void down(String worker, Consumer<Incarnation> command) {
    Incarnation inc = sessions.get(worker);
    if (inc == null) {
      return; // no session: the coordinator commands it when it joins
    }
    inc.lastDown = Math.max(network.now() + sessionDelay(), inc.lastDown);
    network.at(
        inc.lastDown,
        () -> {
          if (inc.sessionUp) {
            command.accept(inc);
          }
        });
  }

  /** A report on {@code inc}'s session to the coordinator, FIFO; lost if the process dies first. */
  private void up(Incarnation inc, Runnable report) {
    inc.lastUp = Math.max(network.now() + sessionDelay(), inc.lastUp);
    network.at(
        inc.lastUp,
        () -> {
          if (inc.sessionUp) {
            report.run();
          }
        });
  }

  private Incarnation of(SimulatedWorker w) {
    Incarnation inc = current.get(w.id());
    if (inc == null || inc.worker != w) {
      throw new IllegalStateException("a report from a worker that is down: " + w.id());
    }
    return inc;
  }

  // ---- checks ------------------------------------------------------------------------------

  private SortedMap<Long, String> checkCommitted() {
    SortedMap<Long, String> contents = new TreeMap<>();
    long total = config.initialBalance() * topology.workers().size();
    for (SimCoordinator.Committed c : coordinator.committed()) {
      contents.put(c.snapshotId(), contentOf(c.pieces()));
      Cut cut =
          Cut.of(
              c.snapshotId(),
              topology.workers(),
              topology.channels(),
              c.pieces().values().stream().map(CompletedLocalSnapshot::cut).toList());
      for (Violation v : CutVerifier.verify(cut)) {
        problem(ProblemKind.CUT_VIOLATION, c.snapshotId(), "committed: " + v);
      }
      long sum = BankAccount.totalOf(c.pieces().values());
      if (sum != total) {
        problem(
            ProblemKind.NOT_CONSERVED,
            c.snapshotId(),
            "committed: balances + money in flight = " + sum + ", expected " + total);
      }
    }
    return contents;
  }

  /**
   * Every worker restored and none resumed yet: the balances plus the recorded transfers waiting to
   * be replayed hold all the money.
   */
  private void checkRestored() {
    long sum = 0;
    for (Incarnation inc : sessions.values()) { // the restored ones (a crash may follow)
      sum += inc.app.balance() + inc.app.replayPendingAmount();
    }
    long total = config.initialBalance() * topology.workers().size();
    if (sum != total) {
      problem(
          ProblemKind.QUIET_NOT_CONSERVED,
          null,
          "rollback "
              + coordinator.rollbacksFinished()
              + ": every worker restored, balances + transfers to replay = "
              + sum
              + ", expected "
              + total);
    }
  }

  private void checkQuiet() {
    if (coordinator.rollingBack()) {
      problem(ProblemKind.RUN, null, "a rollback never finished");
      return;
    }
    coordinator
        .pending()
        .forEach(
            (id, missing) ->
                problem(ProblemKind.INCOMPLETE, id, "never committed; no piece from " + missing));
    long balances = 0;
    for (Incarnation inc : current.values()) {
      inc.worker.notQuiet().forEach(p -> problem(ProblemKind.RUN, null, "not quiet: " + p));
      balances += inc.app.balance();
    }
    for (ChannelId c : topology.channels()) {
      Incarnation from = current.get(c.from());
      Incarnation to = current.get(c.to());
      long sent = from.worker.sent(c.to());
      if (to.worker.received(c.from()) != sent || to.app.lastSeq(c.from()) != sent) {
        problem(
            ProblemKind.DELIVERY,
            null,
            "channel "
                + c
                + ": "
                + sent
                + " sent, "
                + to.worker.received(c.from())
                + " received, the application's last was "
                + to.app.lastSeq(c.from()));
      }
    }
    long total = config.initialBalance() * topology.workers().size();
    if (balances != total) {
      problem(
          ProblemKind.QUIET_NOT_CONSERVED,
          null,
          "once quiet after "
              + coordinator.rollbacksFinished()
              + " rollbacks, the balances sum to "
              + balances
              + ", expected "
              + total);
    }
  }

  private static String contentOf(Map<String, CompletedLocalSnapshot> pieces) {
    StringBuilder b = new StringBuilder();
    pieces.forEach(
        (worker, piece) -> {
          LocalSnapshot cut = piece.cut();
          b.append(worker)
              .append(" balance=")
              .append(BankAccount.decode(piece.state().state()))
              .append(" sent=")
              .append(cut.sent())
              .append(" received=")
              .append(cut.received())
              .append(" recorded=")
              .append(cut.inFlightMessages())
              .append('\n');
        });
    return b.toString();
  }

  private SimResult.Stats stats(long events) {
    long recorded = 0;
    for (SimCoordinator.Committed c : coordinator.committed()) {
      recorded += c.pieces().values().stream().mapToLong(p -> p.cut().inFlightMessages()).sum();
    }
    return new SimResult.Stats(
        events,
        0,
        0,
        coordinator.committed().size(),
        0,
        coordinator.rollbacksFinished(),
        0,
        recorded,
        0,
        coordinator.maxPending());
  }

  private SimResult.WorkerStats workerStats() {
    long[] sum = new long[5];
    long replayed = 0;
    for (Incarnation inc : all) {
      long[] c = inc.worker.counts();
      for (int i = 0; i < sum.length; i++) {
        sum[i] += c[i];
      }
      replayed += inc.app.replayed();
    }
    return new SimResult.WorkerStats(
        sum[0],
        sum[1],
        sum[2],
        sum[3],
        sum[4],
        notAnnounced,
        crashes,
        coordinator.rollbacksFinished(),
        coordinator.rollbacksOverPending(),
        coordinator.maxPending(),
        replayed,
        replayRaces);
  }

  // ---- wiring ------------------------------------------------------------------------------

  private final class Net implements SimulatedWorker.Network {
    @Override
    public long now() {
      return network.now();
    }

    @Override
    public void at(long time, Runnable action) {
      network.at(time, action);
    }

    @Override
    public long delay() {
      return Simulation.this.delay();
    }

    @Override
    public int nextInt(int bound) {
      return random.nextInt(bound);
    }

    @Override
    public SimulatedWorker current(String workerId) {
      Incarnation inc = current.get(workerId);
      return inc == null ? null : inc.worker;
    }

    @Override
    public boolean tracing() {
      return trace != null;
    }

    @Override
    public void trace(String line) {
      trace.add(line);
    }
  }

  /** What the workers report, through their sessions, and to the checks. */
  private final class Reports implements SimulatedWorker.Listener {
    @Override
    public void completed(SimulatedWorker worker, CompletedLocalSnapshot piece) {
      long epoch = worker.epoch();
      note(worker.id() + " completed S=" + piece.cut().snapshotId() + " in epoch " + epoch);
      up(of(worker), () -> coordinator.piece(worker.id(), epoch, piece));
    }

    @Override
    public void failed(SimulatedWorker worker, long snapshotId, String reason) {
      Simulation.this.problem(
          ProblemKind.INCOMPLETE, snapshotId, worker.id() + " failed: " + reason);
    }

    @Override
    public void refused(SimulatedWorker worker, String from, String kind, String description) {
      if (kind.equals("EPOCH_NOT_ANNOUNCED")) {
        notAnnounced++;
      } else if (kind.equals("DATA_LOSS") || kind.equals("MALFORMED")) {
        Simulation.this.problem(
            ProblemKind.REFUSED, null, worker.id() + " refused " + kind + ": " + description);
      }
    }

    @Override
    public void problem(String description) {
      Simulation.this.problem(ProblemKind.RUN, null, description);
    }
  }

  /**
   * The coordinator's commands, carried out as the worker's session does ({@code CommandHandler}).
   */
  private final class Sessions implements SimCoordinator.Commands {
    @Override
    public void start(String worker, long snapshotId, long epoch) {
      down(
          worker,
          inc -> {
            if (epoch == inc.worker.epoch()) {
              note(worker + " initiates S=" + snapshotId);
              inc.worker.startSnapshot(snapshotId);
            } else {
              note(worker + " drops the start of S=" + snapshotId + " of epoch " + epoch);
            }
          });
    }

    @Override
    public void halt(String worker, long epoch) {
      down(
          worker,
          inc -> {
            note(worker + " halts into epoch " + epoch);
            inc.worker.halt(epoch);
            up(inc, () -> coordinator.halted(worker, epoch));
          });
    }

    @Override
    public void restore(String worker, long epoch, int attempt, CompletedLocalSnapshot piece) {
      down(
          worker,
          inc -> {
            if (piece != null) {
              note(worker + " restores S=" + piece.cut().snapshotId() + " in epoch " + epoch);
              inc.worker.restore(epoch, piece.cut(), piece.state().state().clone());
              inc.app.restored(piece.cut());
            }
            up(
                inc,
                () -> {
                  int before = coordinator.rollbacksFinished();
                  coordinator.restored(worker, epoch, attempt);
                  if (coordinator.rollbacksFinished() > before) {
                    checkRestored();
                  }
                });
          });
    }

    @Override
    public void resume(String worker, long epoch) {
      down(
          worker,
          inc -> {
            note(worker + " resumes in epoch " + epoch);
            for (String from : inc.worker.parkedFrom()) {
              if (inc.app.replayPending(from)) {
                replayRaces++; // new traffic waits where recorded messages are to be replayed first
              }
            }
            inc.worker.resume(epoch);
            inc.app.resumed();
          });
    }
  }
}
