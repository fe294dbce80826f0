package io.cutpoint.server.sim;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.client.SimulatedWorker;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.sim.BankApp;
import io.cutpoint.client.sim.SimNetwork;
import io.cutpoint.client.sim.Topology;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.server.analysis.InMemorySnapshotStore;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.TriggerResult;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * A cluster of idle workers (no application traffic, no faults) around one coordinator, on the
 * seeded simulator's parts: the production {@code WorkerCore}s behind {@link SimulatedWorker}, the
 * production coordinator core in a {@link CoordinatorNode}, an in-memory store, one event queue and
 * no sockets. It takes snapshots one at a time and counts the CPU time of the coordinator's work:
 * every task that runs on the coordinator's loop or its store executor ({@link SimLoop}: timers,
 * events posted to the loop, store effects and their results, the acknowledgement of a stored
 * piece) and every message arriving at the coordinator from a worker's session (the join, the
 * upload with its parts stored), plus the trigger. The workers' cores and transports and the event
 * queue itself are not counted.
 */
final class IdleCluster {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final long FIRST_EPOCH = 1;
  private static final long BALANCE = 1_000;
  private static final long MAX_DELAY = 10;

  private final Topology topology;
  private final SplittableRandom random;
  private final SimNetwork network;
  private final SimLoop loop;
  private final InMemorySnapshotStore store = new InMemorySnapshotStore();
  private final CoordinatorNode coordinator;
  private final Map<String, WorkerProcess> workers = new HashMap<>();
  private final List<String> problems = new ArrayList<>();
  private final long joinNanos;
  private long coordinatorNanos;
  private long coordinatorTasks;
  private int depth;

  IdleCluster(Topology topology, long seed) {
    this.topology = topology;
    this.random = new SplittableRandom(seed);
    this.network = new SimNetwork(topology.channels(), random, MAX_DELAY);
    this.loop = new SimLoop(network);
    loop.around(this::counted);
    store.beginRollback(FIRST_EPOCH, 0);
    store.finishRollback(FIRST_EPOCH);
    this.coordinator =
        new CoordinatorNode(
            loop,
            store,
            this::delay,
            false,
            new CoordinatorNode.Observer() {
              @Override
              public void ended(SnapshotManifest m, FailureReason reason) {
                problem("S=" + m.getSnapshotId() + " ended " + reason + ": " + m.getReason());
              }

              @Override
              public void problem(String description) {
                IdleCluster.this.problem(description);
              }
            });
    Map<String, SortedSet<String>> outgoing = new HashMap<>();
    Map<String, SortedSet<String>> incoming = new HashMap<>();
    for (String w : topology.workers()) {
      outgoing.put(w, new TreeSet<>());
      incoming.put(w, new TreeSet<>());
    }
    for (ChannelId c : topology.channels()) {
      outgoing.get(c.from()).add(c.to());
      incoming.get(c.to()).add(c.from());
    }
    Net net = new Net();
    Reports reports = new Reports();
    Host host = new Host();
    for (String id : topology.workers()) {
      BankApp app =
          new BankApp(
              id,
              BALANCE,
              List.copyOf(outgoing.get(id)),
              random,
              0,
              (kind, message) -> problem(kind + ": " + message));
      SimulatedWorker worker =
          new SimulatedWorker(
              id,
              outgoing.get(id),
              incoming.get(id),
              app,
              app,
              FIRST_EPOCH,
              net,
              reports,
              new SimulatedWorker.Options(4, 8, 0, SimulatedWorker.BrokenCore.NONE, true));
      app.attach(worker);
      WorkerProcess p =
          new WorkerProcess(id, worker, app, outgoing.get(id), incoming.get(id), host);
      workers.put(id, p);
      worker.start();
      p.join();
    }
    runToQuiet();
    coordinator
        .membership()
        .view()
        .members()
        .forEach(
            (w, m) -> {
              if (m.state() != WorkerState.WORKER_STATE_RUNNING) {
                problem(w + " joined " + m.state());
              }
            });
    if (coordinator.membership().view().members().size() != topology.workers().size()) {
      problem("only " + coordinator.membership().view().members().size() + " workers joined");
    }
    joinNanos = coordinatorNanos;
  }

  /** The coordinator's CPU time from its start until every worker had joined. */
  long joinNanos() {
    return joinNanos;
  }

  /** One snapshot taken. */
  record Taken(SnapshotManifest manifest, long coordinatorNanos, long coordinatorTasks) {}

  /**
   * Triggers a snapshot and runs until nothing is left to do (its commit and every store write
   * after it); the manifest as the coordinator's outcome gives it, and the coordinator's CPU time.
   */
  Taken snapshot() {
    long nanos = coordinatorNanos;
    long tasks = coordinatorTasks;
    List<CompletableFuture<TriggerResult>> asked = new ArrayList<>(1);
    loop.run(() -> asked.add(coordinator.trigger()));
    runToQuiet();
    TriggerResult r = asked.get(0).getNow(null);
    if (!(r instanceof TriggerResult.Started started)) {
      throw new IllegalStateException("the trigger was not answered with a start: " + r);
    }
    SnapshotManifest outcome = started.outcome().getNow(null);
    if (outcome == null) {
      throw new IllegalStateException("snapshot " + started.manifest().getSnapshotId() + " hangs");
    }
    return new Taken(outcome, coordinatorNanos - nanos, coordinatorTasks - tasks);
  }

  /**
   * Heap in use (after full collections) with one snapshot pending and every piece but one
   * acknowledged, and once it is committed, each less the heap in use before it started. Both count
   * the whole process: the coordinator, its in-memory store (the pieces' counters and states, the
   * manifests) and the workers.
   */
  record Held(long pendingBytes, long committedBytes) {}

  Held heldBySnapshot() {
    int allButOne = topology.workers().size() - 1;
    long idle = usedHeap();
    loop.run(() -> coordinator.trigger());
    while (coordinator.lifecycle().view().pending().values().stream()
        .noneMatch(m -> m.pieceCount() == allButOne)) {
      if (!network.step()) {
        throw new IllegalStateException("the snapshot ended before its last piece was in");
      }
    }
    long pending = usedHeap();
    runToQuiet();
    long committed = usedHeap();
    return new Held(pending - idle, committed - idle);
  }

  @SuppressWarnings("JavaLangClearGarbage") // a measurement: the heap a snapshot holds
  private static long usedHeap() {
    Runtime r = Runtime.getRuntime();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      least = Math.min(least, r.totalMemory() - r.freeMemory());
    }
    return least;
  }

  /** Checks every committed cut as the simulator does; returns each one's content by id. */
  SortedMap<Long, String> checkCommitted() {
    return new StoredCuts(store, topology, BALANCE)
        .check((kind, id, m) -> problem(kind + " S=" + id + ": " + m));
  }

  /** What went wrong so far (a correct cluster has nothing here). */
  List<String> problems() {
    return List.copyOf(problems);
  }

  Optional<SnapshotManifest> stored(long snapshotId) {
    return store.manifest(snapshotId);
  }

  private void runToQuiet() {
    while (network.step()) {
      // every event runs; an idle cluster has no timer that repeats
    }
  }

  /** Runs one task of the coordinator and counts its CPU time (not nested tasks twice). */
  private void counted(Runnable task) {
    if (depth > 0) {
      task.run();
      return;
    }
    depth++;
    long start = THREADS.getCurrentThreadCpuTime();
    try {
      task.run();
    } finally {
      coordinatorNanos += THREADS.getCurrentThreadCpuTime() - start;
      coordinatorTasks++;
      depth--;
    }
  }

  private void problem(String description) {
    problems.add(network.now() + " " + description);
  }

  private long delay() {
    return 1 + random.nextLong(MAX_DELAY);
  }

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
      return IdleCluster.this.delay();
    }

    @Override
    public int nextInt(int bound) {
      return random.nextInt(bound);
    }

    @Override
    public SimulatedWorker current(String workerId) {
      WorkerProcess p = workers.get(workerId);
      return p == null ? null : p.worker();
    }

    @Override
    public boolean tracing() {
      return false;
    }

    @Override
    public void trace(String line) {}
  }

  /** Pieces go up as uploads on the worker's session. */
  private final class Reports implements SimulatedWorker.Listener {
    @Override
    public void completed(SimulatedWorker worker, CompletedLocalSnapshot piece) {
      long epoch = worker.epoch();
      SimSession s = workers.get(worker.id()).session();
      if (s != null) {
        s.toCoordinator(() -> s.coordinator().upload(s, piece, epoch));
      }
    }

    @Override
    public void failed(SimulatedWorker worker, long snapshotId, String reason) {
      IdleCluster.this.problem(worker.id() + " failed S=" + snapshotId + ": " + reason);
    }

    @Override
    public void refused(SimulatedWorker worker, String from, String kind, String description) {
      IdleCluster.this.problem(worker.id() + " refused " + from + ": " + kind + " " + description);
    }

    @Override
    public void problem(SimulatedWorker worker, String description) {
      IdleCluster.this.problem(description);
    }
  }

  private final class Host implements WorkerProcess.Host {
    @Override
    public SimSession connect(WorkerProcess process) {
      return new SimSession(process, coordinator, network, IdleCluster.this::delay, (w, m) -> {});
    }

    @Override
    public void later(Runnable action) {
      network.at(network.now() + delay(), action);
    }

    @Override
    public Optional<StoredPieces.Stored> download(long snapshotId, String worker) {
      return StoredPieces.read(store, snapshotId, worker, topology.incoming(worker));
    }

    @Override
    public void restored(WorkerProcess process, long epoch) {}

    @Override
    public void note(String line) {}

    @Override
    public void problem(String description) {
      IdleCluster.this.problem(description);
    }
  }
}
