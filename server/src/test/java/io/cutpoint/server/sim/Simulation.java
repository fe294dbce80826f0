package io.cutpoint.server.sim;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.client.SimulatedWorker;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.sim.BankApp;
import io.cutpoint.client.sim.SimConfig;
import io.cutpoint.client.sim.SimFaults;
import io.cutpoint.client.sim.SimNetwork;
import io.cutpoint.client.sim.SimResult;
import io.cutpoint.client.sim.SimResult.Problem;
import io.cutpoint.client.sim.SimResult.ProblemKind;
import io.cutpoint.client.sim.Topology;
import io.cutpoint.client.sim.TopologyKind;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.server.analysis.InMemorySnapshotStore;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.TriggerResult;
import io.cutpoint.server.rollback.RollbackStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Runs one seeded schedule of the whole engine: the production coordinator core ({@link
 * CoordinatorNode}: membership, snapshot lifecycle, rollback) and a production {@code WorkerCore}
 * per worker behind simulated transports ({@link SimulatedWorker}, {@link SimSession}), a {@link
 * BankApp} as each worker's application, and an in-memory store that outlives coordinator restarts.
 * Everything runs in one seeded event queue ({@link SimNetwork}): channel items, session messages,
 * store operations ({@link SimStore}) and the coordinator's timers ({@link SimLoop}). Random
 * transfers, periodic triggers (several snapshots pending at once), operator rollbacks, broken
 * streams with resends, workers lost and restarted fresh (the automatic policy rolls back), and the
 * coordinator killed and started again over its store fill the busy period; then the run goes on
 * until nothing is left to do, and the checks run:
 *
 * <ul>
 *   <li>every cut the store holds as COMPLETE, read back from the store, passes {@code CutVerifier}
 *       and conserves the bank's money; no snapshot ends FAILED, timed out or given up by a worker;
 *   <li>when a rollback resumes the workers (every one restored, none resumed), the balances plus
 *       the recorded transfers waiting to be replayed hold all the money;
 *   <li>once quiet: no rollback runs or failed, nothing is pending (in the lifecycle or the store),
 *       every worker is running, the balances add up to the total, and no worker is halted,
 *       recording (a welcome ends the recordings of a killed coordinator's snapshots), or holding
 *       unacknowledged or parked items;
 *   <li>the application is never handed a message of an old epoch except as a replay, each channel
 *       delivers every message once per epoch in sequence order, and in the end every message sent
 *       in the last epoch was delivered; no core refused a stream for DATA_LOSS or MALFORMED.
 * </ul>
 *
 * A schedule stops at its first problem (what follows is its consequence); the committed cuts are
 * checked all the same. It is a pure function of (topology, seed, config, faults, variant).
 */
public final class Simulation {

  private static final long MAX_EVENTS = 500_000;

  private static final Set<SnapshotStatus> ANY_STATUS =
      java.util.EnumSet.of(
          SnapshotStatus.SNAPSHOT_STATUS_PENDING,
          SnapshotStatus.SNAPSHOT_STATUS_COMPLETE,
          SnapshotStatus.SNAPSHOT_STATUS_ABORTED,
          SnapshotStatus.SNAPSHOT_STATUS_FAILED);

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
  private final SimLoop loop;
  private final InMemorySnapshotStore store = new InMemorySnapshotStore();
  private final SimulatedWorker.Options options;
  private final Map<String, WorkerProcess> current = new TreeMap<>();
  private final List<WorkerProcess> all = new ArrayList<>();
  private final Map<WorkerProcess, Long> restoredIn = new HashMap<>();

  /**
   * Workers restarted fresh and not restored since: their channel positions start over while their
   * peers' go on, until the rollback their fresh join starts (a coordinator restart can lose the
   * notice of their loss, so they may be welcomed into their peers' epoch first).
   */
  private final Set<SimulatedWorker> freshNotRestored = new HashSet<>();

  private final Set<Long> resumedEpochs = new HashSet<>();
  private final Map<Long, Long> restoreTarget = new HashMap<>();
  private final Set<String> rollbacksOverPending = new HashSet<>();
  private final List<Problem> problems = new ArrayList<>();
  private final List<String> trace;
  private final SimulatedWorker.Network net = new Net();
  private final SimulatedWorker.Listener listener = new Reports();
  private final WorkerProcess.Host host = new Host();
  private final CoordinatorNode.Observer observer = new Observer();
  private CoordinatorNode coordinator;
  private long notAnnounced;
  private long crashes;
  private long restarts;
  private long restartsInRollback;
  private long freshDataLoss;
  private long handRollbacks;
  private int started;
  private int maxPending;

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
    this.loop = new SimLoop(network);
    this.trace = withTrace ? new ArrayList<>() : null;
    this.options =
        new SimulatedWorker.Options(
            1 + random.nextInt(4),
            1 + random.nextInt(8),
            faults.resendBeforeAckPercent(),
            switch (variant) {
              case NO_EPOCH_FENCING -> SimulatedWorker.BrokenCore.NO_EPOCH_FENCING;
              case REPLAY_AFTER_NEW_TRAFFIC -> SimulatedWorker.BrokenCore.REPLAY_AFTER_NEW_TRAFFIC;
              case MARKER_AHEAD_DROPS_DATA_AT_HAND ->
                  SimulatedWorker.BrokenCore.MARKER_AHEAD_DROPS_DATA_AT_HAND;
              case NONE, EARLY_COMMIT -> SimulatedWorker.BrokenCore.NONE;
            },
            (seed & 1) == 0); // markers read ahead in every other schedule
    store.beginRollback(FIRST_EPOCH, 0); // a cluster past its first epoch: fresh workers lag
    store.finishRollback(FIRST_EPOCH);
    this.coordinator = newCoordinator();
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

  private CoordinatorNode newCoordinator() {
    return new CoordinatorNode(loop, store, this::delay, variant == Variant.EARLY_COMMIT, observer);
  }

  private WorkerProcess start(String id, long epoch) {
    BankApp app =
        new BankApp(
            id,
            config.initialBalance(),
            List.copyOf(topology.outgoing(id)),
            random,
            config.forwardPercent(),
            (kind, message) -> problem(kind, null, message));
    SimulatedWorker worker =
        new SimulatedWorker(
            id,
            topology.outgoing(id),
            topology.incoming(id),
            app,
            app,
            epoch,
            net,
            listener,
            options);
    app.attach(worker);
    WorkerProcess p =
        new WorkerProcess(id, worker, app, topology.outgoing(id), topology.incoming(id), host);
    current.put(id, p);
    all.add(p);
    if (epoch == 0) {
      freshNotRestored.add(worker);
    }
    worker.start();
    p.join();
    return p;
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
    long half = config.horizon() / 2;
    for (int i = 0; i < config.transfers(); i++) {
      String w = ids.get(random.nextInt(ids.size()));
      network.at(
          random.nextLong(config.horizon()),
          () -> {
            WorkerProcess p = current.get(w);
            if (p != null) {
              p.app().transferAtRandom();
            }
          });
    }
    for (int i = 0; i < config.snapshots(); i++) {
      network.at(random.nextLong(config.horizon()), this::trigger);
    }
    for (int i = 0; i < config.rollbacks(); i++) {
      network.at(half + random.nextLong(half + 1), this::operatorRollback);
    }
    List<ChannelId> channels = List.copyOf(topology.channels());
    for (int i = 0; i < faults.reconnects() && !channels.isEmpty(); i++) {
      ChannelId c = channels.get(random.nextInt(channels.size()));
      network.at(
          random.nextLong(config.horizon()),
          () -> {
            WorkerProcess p = current.get(c.from());
            if (p != null) {
              p.worker().breakStream(c.to());
            }
          });
    }
    if (random.nextInt(100) < faults.crashPercent()) {
      String w = ids.get(random.nextInt(ids.size()));
      network.at(half + random.nextLong(half + 1), () -> crash(w));
    }
    if (random.nextInt(100) < faults.coordinatorRestartPercent()) {
      network.at(half / 2 + random.nextLong(config.horizon()), this::restartCoordinator);
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
    StoredCuts cuts = new StoredCuts(store, topology, config.initialBalance());
    SortedMap<Long, String> contents = cuts.check((kind, id, m) -> problem(kind, id, m));
    if (ranToEnd) {
      checkQuiet();
    }
    return new SimResult(
        scenario,
        seed,
        variant == Variant.NONE ? "" : variant.name(),
        topology,
        new SimResult.Stats(
            events,
            0,
            started,
            contents.size(),
            0,
            resumedEpochs.size(),
            0,
            cuts.recordedMessages(),
            0,
            maxPending,
            0,
            0),
        workerStats(),
        List.copyOf(problems),
        contents,
        trace == null ? List.of() : List.copyOf(trace));
  }

  // ---- the schedule's events ---------------------------------------------------------------

  private void trigger() {
    var unused =
        coordinator
            .trigger()
            .thenAccept(
                r -> {
                  if (r instanceof TriggerResult.Started s) {
                    started++;
                    note("trigger: S=" + s.snapshotId() + " started");
                  } else {
                    note("trigger refused: " + ((TriggerResult.Refused) r).message());
                  }
                  maxPending =
                      Math.max(maxPending, coordinator.lifecycle().view().pending().size());
                });
  }

  /** An operator rolls back to any committed snapshot, the newest or an older one. */
  private void operatorRollback() {
    operatorRollback(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE));
  }

  private void operatorRollback(Set<SnapshotStatus> statuses) {
    List<SnapshotManifest> stored = store.list(statuses);
    if (stored.isEmpty()) {
      note("operator rollback: no snapshot to ask for");
      return;
    }
    askRollback("operator rollback", stored.get(random.nextInt(stored.size())).getSnapshotId());
  }

  private void askRollback(String who, long target) {
    var unused =
        coordinator
            .rollbackTo(target)
            .whenComplete(
                (r, e) ->
                    note(who + " to S=" + target + (e == null ? " started" : " refused: " + e)));
  }

  /** The newest complete snapshot that holds every worker, if any. */
  private java.util.OptionalLong newestOfEveryWorker() {
    return store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)).stream()
        .filter(m -> m.getTopology().getWorkersCount() == topology.workers().size())
        .mapToLong(SnapshotManifest::getSnapshotId)
        .max();
  }

  /**
   * The operator's rollback after a fresh worker's rollback was lost with a coordinator: to the
   * newest complete snapshot of every worker, unless the worker was restored meanwhile or a
   * rollback runs (which restores it).
   */
  private void handRollback() {
    boolean stillFresh =
        current.values().stream().anyMatch(p -> freshNotRestored.contains(p.worker()));
    if (!stillFresh || store.rollbackInProgress().isPresent()) {
      return;
    }
    newestOfEveryWorker()
        .ifPresent(
            target -> {
              handRollbacks++;
              askRollback("rollback by hand", target);
            });
  }

  /**
   * Loses {@code w}'s process; the coordinator notices, and a fresh process joins later. Only once
   * a complete snapshot covers every worker: a worker restarted fresh with no snapshot to roll back
   * to joins its peers' epoch with its channel positions starting over, which nothing mends.
   */
  private void crash(String w) {
    WorkerProcess p = current.get(w);
    boolean covered = newestOfEveryWorker().isPresent();
    if (p == null || !covered) {
      note("crash of " + w + " skipped: " + (p == null ? "it is down" : "no cut of every worker"));
      return;
    }
    crashes++;
    note(w + " is lost");
    SimSession s = p.session();
    p.crash();
    current.remove(w);
    if (s != null) {
      network.at(
          network.now() + 2 * delay(),
          () -> {
            if (s.coordinator().running()) {
              s.coordinator().lost(s);
            }
          });
    }
    network.at(
        network.now() + delay(),
        () -> {
          note(w + " restarts with a fresh state in epoch 0");
          start(w, 0);
        });
  }

  /**
   * Kills the coordinator and starts a new one over the same store: what the old one had queued
   * (timers, store writes, messages in flight) is lost; every worker's session ends and it joins
   * the new one.
   */
  private void restartCoordinator() {
    restarts++;
    boolean inRollback = store.rollbackInProgress().isPresent();
    if (inRollback) {
      restartsInRollback++;
    }
    note("the coordinator is killed" + (inRollback ? " during a rollback" : "") + "; it restarts");
    loop.nextGeneration();
    for (WorkerProcess p : current.values()) {
      SimSession s = p.session();
      if (s != null) {
        s.cut();
        network.at(network.now() + sessionDelay(), () -> p.sessionEnded(s));
      }
    }
    coordinator = newCoordinator();
    if (current.values().stream().anyMatch(p -> freshNotRestored.contains(p.worker()))) {
      // A fresh worker whose rollback the killed coordinator may not have persisted re-joins as
      // not fresh (recovery.md, "A coordinator killed right after welcoming a fresh worker"):
      // the operator rolls back by hand, as that section says, once the workers are back.
      network.at(network.now() + 4 * config.maxDelay() + delay(), this::handRollback);
    }
    if (random.nextInt(2) == 0) {
      // while the workers join again, an operator asks for a rollback to any snapshot the store
      // keeps, often one that the checks refuse (the restart ended it): some join meanwhile
      network.at(
          network.now() + 1 + random.nextLong(3L * config.maxDelay()),
          () -> operatorRollback(ANY_STATUS));
    }
  }

  // ---- checks ------------------------------------------------------------------------------

  /**
   * A rollback resumes the workers of {@code epoch}: every one restored and none resumed, the
   * balances plus the recorded transfers waiting to be replayed hold all the money.
   */
  private void checkRestored(long epoch) {
    Map<String, WorkerProcess> restored = new TreeMap<>();
    for (WorkerProcess p : all) {
      if (restoredIn.getOrDefault(p, -1L) == epoch) {
        restored.put(p.id(), p); // the last process of each worker that restored in this epoch
      }
    }
    long sum = 0;
    for (WorkerProcess p : restored.values()) {
      sum += p.app().balance() + p.app().replayPendingAmount();
    }
    // a cut taken before every worker joined covers those that had (whole components)
    int covered =
        store
            .manifest(restoreTarget.getOrDefault(epoch, 0L))
            .map(m -> m.getTopology().getWorkersCount())
            .orElse(-1);
    long total = config.initialBalance() * covered;
    if (sum != total || restored.size() != covered) {
      problem(
          ProblemKind.QUIET_NOT_CONSERVED,
          null,
          "rollback into epoch "
              + epoch
              + ": "
              + restored.size()
              + " workers restored, balances + transfers to replay = "
              + sum
              + ", expected "
              + total);
    }
  }

  private void checkQuiet() {
    RollbackStatus status = coordinator.rollback().status();
    if (status.phase() != RollbackStatus.Phase.NONE) {
      problem(ProblemKind.RUN, null, "a rollback never finished: " + status);
      return;
    }
    coordinator
        .lifecycle()
        .pendingIds()
        .forEach(id -> problem(ProblemKind.INCOMPLETE, id, "still pending at the end"));
    for (SnapshotManifest m : store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_PENDING))) {
      problem(ProblemKind.INCOMPLETE, m.getSnapshotId(), "PENDING in the store at the end");
    }
    coordinator
        .membership()
        .view()
        .members()
        .forEach(
            (w, m) -> {
              if (m.state() != WorkerState.WORKER_STATE_RUNNING) {
                problem(ProblemKind.RUN, null, "worker " + w + " ends " + m.state());
              }
            });
    long balances = 0;
    for (WorkerProcess p : current.values()) {
      for (String line : p.worker().notQuiet()) {
        problem(ProblemKind.RUN, null, "not quiet: " + line);
      }
      balances += p.app().balance();
    }
    for (ChannelId c : topology.channels()) {
      WorkerProcess from = current.get(c.from());
      WorkerProcess to = current.get(c.to());
      long sent = from.worker().sent(c.to());
      if (to.worker().received(c.from()) != sent || to.app().lastSeq(c.from()) != sent) {
        problem(
            ProblemKind.DELIVERY,
            null,
            "channel "
                + c
                + ": "
                + sent
                + " sent, "
                + to.worker().received(c.from())
                + " received, the application's last was "
                + to.app().lastSeq(c.from()));
      }
    }
    long total = config.initialBalance() * topology.workers().size();
    if (balances != total) {
      problem(
          ProblemKind.QUIET_NOT_CONSERVED,
          null,
          "once quiet after "
              + resumedEpochs.size()
              + " rollbacks, the balances sum to "
              + balances
              + ", expected "
              + total);
    }
  }

  private SimResult.WorkerStats workerStats() {
    long[] sum = new long[6];
    long replayed = 0;
    long races = 0;
    for (WorkerProcess p : all) {
      long[] c = p.worker().counts();
      for (int i = 0; i < sum.length; i++) {
        sum[i] += c[i];
      }
      replayed += p.app().replayed();
      races += p.replayRaces();
    }
    return new SimResult.WorkerStats(
        sum[0],
        sum[1],
        sum[2],
        sum[3],
        sum[4],
        notAnnounced,
        crashes,
        resumedEpochs.size(),
        rollbacksOverPending.size(),
        maxPending,
        replayed,
        races,
        restarts,
        restartsInRollback,
        sum[5],
        handRollbacks);
  }

  /** Recordings a welcome ended: of a killed coordinator's snapshots, or of unheard-of ends. */
  long recordingsEndedByWelcome() {
    long n = 0;
    for (WorkerProcess p : all) {
      n += p.recordingsEndedByWelcome();
    }
    return n;
  }

  /** Whether worker {@code id} is now a fresh incarnation that no rollback restored yet. */
  private boolean freshSender(String id) {
    WorkerProcess p = current.get(id);
    return p != null && freshNotRestored.contains(p.worker());
  }

  /**
   * Streams refused for DATA_LOSS by a fresh worker, or from one, before its rollback (counted, not
   * a problem).
   */
  long freshDataLoss() {
    return freshDataLoss;
  }

  // ---- delays ------------------------------------------------------------------------------

  /** A channel's (and a store operation's) delay: 1 to maxDelay ticks. */
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
      WorkerProcess p = current.get(workerId);
      return p == null ? null : p.worker();
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

  /** What the workers report: pieces go up as uploads on their session. */
  private final class Reports implements SimulatedWorker.Listener {
    @Override
    public void completed(SimulatedWorker worker, CompletedLocalSnapshot piece) {
      long epoch = worker.epoch();
      note(worker.id() + " completed S=" + piece.cut().snapshotId() + " in epoch " + epoch);
      WorkerProcess p = current.get(worker.id());
      SimSession s = p == null || p.worker() != worker ? null : p.session();
      if (s != null) {
        s.toCoordinator(() -> s.coordinator().upload(s, piece, epoch));
      }
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
      } else if (kind.equals("DATA_LOSS") && freshNotRestored.contains(worker)) {
        freshDataLoss++; // its peers' positions are its old incarnation's: the rollback mends it
      } else if (kind.equals("DATA_LOSS") && freshSender(from)) {
        // the same, seen from the peer: the fresh worker numbers anew the positions its old
        // incarnation used in this epoch, and the peer dropped them as duplicates (it learns only
        // from the peer's next ack, which may come after its next frame)
        freshDataLoss++;
      } else if (kind.equals("DATA_LOSS") || kind.equals("MALFORMED")) {
        Simulation.this.problem(
            ProblemKind.REFUSED, null, worker.id() + " refused " + kind + ": " + description);
      }
    }

    @Override
    public void problem(SimulatedWorker worker, String description) {
      if (freshNotRestored.contains(worker)) {
        freshDataLoss++; // its receivers acknowledge what its old incarnation sent: as above
        return;
      }
      Simulation.this.problem(ProblemKind.RUN, null, description);
    }
  }

  /** The worker processes' way to the coordinator and the store. */
  private final class Host implements WorkerProcess.Host {
    @Override
    public SimSession connect(WorkerProcess process) {
      return new SimSession(
          process, coordinator, network, Simulation.this::sessionDelay, Simulation.this::sent);
    }

    @Override
    public void later(Runnable action) {
      network.at(network.now() + sessionDelay(), action);
    }

    @Override
    public Optional<StoredPieces.Stored> download(long snapshotId, String worker) {
      return StoredPieces.read(store, snapshotId, worker, topology.incoming(worker));
    }

    @Override
    public void restored(WorkerProcess process, long epoch) {
      restoredIn.put(process, epoch);
      freshNotRestored.remove(process.worker());
    }

    @Override
    public void note(String line) {
      Simulation.this.note(line);
    }

    @Override
    public void problem(String description) {
      Simulation.this.problem(ProblemKind.RUN, null, description);
    }
  }

  /** Every message the coordinator writes on a session, as it writes it. */
  private void sent(String worker, CoordinatorMessage m) {
    if (trace != null) {
      note("coordinator -> " + worker + ": " + m.getBodyCase() + " " + brief(m));
    }
    if (m.hasRestore()) {
      restoreTarget.put(m.getRestore().getEpoch(), m.getRestore().getSnapshotId());
    }
    if (m.hasResume() && resumedEpochs.add(m.getResume().getEpoch())) {
      checkRestored(m.getResume().getEpoch());
    }
  }

  private static String brief(CoordinatorMessage m) {
    return switch (m.getBodyCase()) {
      case WELCOME ->
          "epoch " + m.getWelcome().getEpoch() + " halted " + m.getWelcome().getHalted();
      case START_SNAPSHOT -> "S=" + m.getStartSnapshot().getSnapshotId();
      case ABORT_SNAPSHOT -> "S=" + m.getAbortSnapshot().getSnapshotId();
      case HALT -> "epoch " + m.getHalt().getEpoch();
      case RESTORE -> "S=" + m.getRestore().getSnapshotId() + " epoch " + m.getRestore().getEpoch();
      case RESUME -> "epoch " + m.getResume().getEpoch();
      default -> "";
    };
  }

  /** What the coordinator reports besides its messages. */
  private final class Observer implements CoordinatorNode.Observer {
    @Override
    public void ended(SnapshotManifest m, FailureReason reason) {
      long id = m.getSnapshotId();
      note("S=" + id + " ended " + m.getStatus() + " (" + reason + "): " + m.getReason());
      switch (reason) {
        case CUT_INVALID ->
            Simulation.this.problem(
                ProblemKind.CUT_VIOLATION,
                id,
                "the coordinator's CutVerifier check failed: " + m.getReason());
        case TIMEOUT, LOCAL_FAILURE, STORE_ERROR ->
            Simulation.this.problem(
                ProblemKind.INCOMPLETE, id, "ended " + reason + ": " + m.getReason());
        case COORDINATOR -> {
          if (m.getReason().startsWith("rollback to snapshot")) {
            rollbacksOverPending.add(m.getReason());
          }
        }
        case WORKER_LOST, TOPOLOGY_CHANGED, OPERATOR -> {}
      }
    }

    @Override
    public void problem(String description) {
      Simulation.this.problem(ProblemKind.RUN, null, description);
    }
  }
}
