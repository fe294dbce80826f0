package io.cutpoint.ops.bench;

import io.cutpoint.api.v1.PhaseTimings;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongToDoubleFunction;

/**
 * Item 1: trigger-to-committed snapshot latency (and its phases) for every cluster size, ring and
 * full mesh, small and large states, idle and under a steady message rate; then the idle-only rings
 * of {@link BenchPlan#idleRings()} (1 KiB). Idle rows also carry the process CPU time per snapshot:
 * CPU over the measured snapshots minus what the same cluster used idle over the same time (its
 * idle rate, measured once per cluster, right after its first idle configuration, when the JIT is
 * warm and the cluster's start has settled, over a window as long as that configuration's snapshots
 * took, within {@link BenchPlan#baselineMillis()} and four times that).
 */
final class LatencyPhase {

  /**
   * One configuration's measurements; {@code cpuMillisPerSnapshot} is NaN under traffic and on the
   * shared store; {@code store} is the coordinator's, {@link BenchCoordinator#ROCKSDB} or {@link
   * BenchCoordinator#S3}.
   */
  record Row(
      int workers,
      String layout,
      int channels,
      int stateBytes,
      boolean traffic,
      Samples total,
      Samples markers,
      Samples upload,
      Samples commit,
      int failed,
      double cpuMillisPerSnapshot,
      double jitMillisPerSnapshot,
      String store,
      Map<String, Samples> criticalPath) {}

  private static final int WARM_UP = 5;

  /**
   * Each row that warms up does so for at least this long too: the JIT recompiles what a new
   * cluster's shape deoptimized (the first row after the warm-up read 2.9 ms where the same
   * configuration read 2.1 ms later in the run, with 5 unmeasured snapshots only).
   */
  private static final long ROW_WARM_UP_NANOS = 300_000_000L;

  /**
   * The step of the critical path outside the coordinator's trace: the admin call that triggers the
   * snapshot, the trigger up to the start commands, and the reply after the commit.
   */
  static final String TRIGGER_AND_REPLY = "trigger and reply";

  /** The cluster measured on the shared store too: a full mesh of this many workers. */
  static final int S3_WORKERS = 8;

  /** Snapshots measured on the shared store (fewer if the plan's samples are fewer). */
  static final int S3_SAMPLES = 20;

  /** Time budget of one configuration's measured snapshots (at least one is always taken). */
  private static final long BUDGET_NANOS = 8_000_000_000L;

  private static final byte[] PAYLOAD = new byte[64];

  private LatencyPhase() {}

  static List<Row> run(BenchPlan plan, Consumer<String> progress) {
    List<Row> rows = new ArrayList<>();
    for (int n : plan.workers()) {
      for (Layout layout : List.of(Layout.ring(n), Layout.mesh(n))) {
        rows.addAll(cluster(plan, progress, layout, true));
      }
    }
    if (plan.workers().contains(S3_WORKERS)) {
      Row s3 = sharedStore(plan, progress);
      // next to the same configuration on RocksDB
      int at = 0;
      for (int i = 0; i < rows.size(); i++) {
        Row r = rows.get(i);
        if (r.workers() == S3_WORKERS
            && r.layout().equals("mesh")
            && r.stateBytes() == plan.smallStateBytes()
            && !r.traffic()) {
          at = i + 1;
        }
      }
      rows.add(at, s3);
    }
    for (int n : plan.idleRings()) {
      rows.addAll(cluster(plan, progress, Layout.ring(n), false));
    }
    return rows;
  }

  /**
   * Every configuration of one layout; {@code full}: idle and traffic, with both states up to
   * {@link BenchPlan#largeStateMaxWorkers()} workers; else 1 KiB idle. The JIT was warmed up by
   * {@link WarmUpPhase}; each 1 KiB row still begins with {@link #WARM_UP} unmeasured snapshots,
   * for at least {@link #ROW_WARM_UP_NANOS}.
   */
  private static List<Row> cluster(
      BenchPlan plan, Consumer<String> progress, Layout layout, boolean full) {
    progress.accept(
        "snapshot latency: "
            + layout.ids().size()
            + " workers, "
            + layout.name()
            + (full ? "" : ", 1 KiB idle only"));
    List<Row> rows = new ArrayList<>();
    try (BenchCluster c =
        BenchCluster.start(layout, plan, id -> new BenchApp(plan.smallStateBytes()))) {
      double[] idleRate = {Double.NaN};
      LongToDoubleFunction idleCpuPerNano =
          wallNanos -> {
            if (Double.isNaN(idleRate[0])) {
              long min = plan.baselineMillis();
              idleRate[0] = idleCpuRate(Math.max(min, Math.min(4 * min, wallNanos / 1_000_000)));
            }
            return idleRate[0];
          };
      List<Integer> states =
          full && layout.ids().size() <= plan.largeStateMaxWorkers()
              ? List.of(plan.smallStateBytes(), plan.largeStateBytes())
              : List.of(plan.smallStateBytes());
      for (int state : states) {
        c.nodes().forEach(node -> ((BenchApp) node.app()).stateBytes(state));
        boolean large = state == plan.largeStateBytes();
        for (boolean traffic : full ? List.of(false, true) : List.of(false)) {
          Traffic t = traffic ? Traffic.steady(routes(c), plan.steadyRate()) : null;
          try {
            rows.add(
                measure(
                    c,
                    state,
                    large ? plan.largeSamples() : plan.smallSamples(layout.ids().size()),
                    traffic,
                    large ? 1 : WARM_UP, // one full upload: the chunker's code warm
                    traffic ? null : idleCpuPerNano));
          } finally {
            if (t != null) {
              t.close();
            }
          }
        }
      }
    }
    return rows;
  }

  /**
   * The idle 1 KiB row of {@link #S3_WORKERS} workers in a full mesh, with the coordinator's store
   * on an S3 server and its catalog on a ZooKeeper server, both in this JVM.
   */
  private static Row sharedStore(BenchPlan plan, Consumer<String> progress) {
    progress.accept(
        "snapshot latency: "
            + S3_WORKERS
            + " workers, mesh, 1 KiB idle, store on S3 (S3Proxy and ZooKeeper in this JVM)");
    try (BenchCluster c =
        BenchCluster.start(
            Layout.mesh(S3_WORKERS),
            plan,
            id -> new BenchApp(plan.smallStateBytes()),
            BenchCoordinator.S3)) {
      return measure(
          c, plan.smallStateBytes(), Math.min(plan.samples(), S3_SAMPLES), false, WARM_UP, null);
    }
  }

  /** Process CPU nanoseconds per wall nanosecond while nothing is asked of the cluster. */
  private static double idleCpuRate(long millis) {
    long cpu0 = ProcessCpu.nanos();
    long t0 = System.nanoTime();
    Pause.untilNanos(t0 + millis * 1_000_000);
    long cpu1 = ProcessCpu.nanos();
    return cpu0 < 0 ? Double.NaN : (double) (cpu1 - cpu0) / (System.nanoTime() - t0);
  }

  static List<Traffic.Route> routes(BenchCluster c) {
    List<Traffic.Route> routes = new ArrayList<>();
    for (BenchCluster.Node node : c.nodes()) {
      for (String to : c.layout().outgoing().get(node.id())) {
        routes.add(Traffic.Route.fixed(node.worker(), to, PAYLOAD));
      }
    }
    return routes;
  }

  /** A snapshot, or null if the coordinator refused it. */
  static BenchCoordinator.Taken snapshotOrNull(BenchCluster c) {
    try {
      return c.coordinator().snapshot();
    } catch (StatusRuntimeException e) { // refused, e.g. a session reconnecting on a busy machine
      return null;
    }
  }

  /**
   * {@code idleCpuPerNano}: the cluster's idle CPU rate, asked for after the snapshots with their
   * wall time (null: no CPU).
   */
  /** States above this size are renewed whole before every measured snapshot (a full upload). */
  private static final int SMALL_STATE_LIMIT = 1 << 20;

  /** Numbers every renewal of the large states of this run: no content ever comes back. */
  private static final java.util.concurrent.atomic.AtomicLong RENEWALS =
      new java.util.concurrent.atomic.AtomicLong(0x6c61726765L);

  /**
   * Gives every worker a state of fresh random bytes of its own, so that the next snapshot uploads
   * every byte of every worker (no chunk is held from an earlier snapshot or another worker), as
   * the row's limit charges; returns the CPU time this thread spent making them, which the row's
   * CPU leaves out.
   */
  private static long renew(BenchCluster c, int bytes) {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadCpuTime();
    for (BenchCluster.Node n : c.nodes()) {
      IncrementalPhase.replace(n, StateEdit.random(bytes, RENEWALS.getAndIncrement()));
    }
    return Math.max(0, threads.getCurrentThreadCpuTime() - before);
  }

  private static Row measure(
      BenchCluster c,
      int state,
      int samples,
      boolean traffic,
      int warmUp,
      LongToDoubleFunction idleCpuPerNano) {
    Samples total = new Samples();
    Samples markers = new Samples();
    Samples upload = new Samples();
    Samples commit = new Samples();
    Map<String, Samples> path = new LinkedHashMap<>();
    int failed = 0;
    boolean large = state > SMALL_STATE_LIMIT;
    long warmEnd = System.nanoTime() + (warmUp > 0 && !large ? ROW_WARM_UP_NANOS : 0);
    for (int i = 0; i < warmUp || System.nanoTime() < warmEnd; i++) {
      if (large) {
        renew(c, state);
      }
      snapshotOrNull(c);
    }
    long jit0 = ProcessCpu.jitNanos();
    long t0 = System.nanoTime();
    long cpu0 = ProcessCpu.nanos();
    long deadline = t0 + BUDGET_NANOS;
    long renewing = 0;
    for (int i = 0; i < samples && (i == 0 || System.nanoTime() < deadline); i++) {
      if (large) {
        renewing += renew(c, state);
      }
      BenchCoordinator.Taken t = snapshotOrNull(c);
      if (t == null || !t.complete()) {
        failed++;
        continue;
      }
      PhaseTimings p = t.manifest().getTimings();
      total.add(t.clientMillis());
      t.steps((step, ms) -> path.computeIfAbsent(step, k -> new Samples()).add(ms));
      markers.add(p.getMarkerPropagationMicros() / 1000.0);
      upload.add(p.getUploadMicros() / 1000.0);
      commit.add(p.getCommitMicros() / 1000.0);
      Pause.millis(2);
    }
    long cpu = ProcessCpu.nanos() - cpu0 - renewing;
    long wall = System.nanoTime() - t0;
    long jit = ProcessCpu.jitNanos() - jit0;
    int taken = total.count() + failed;
    double cpuPerSnapshot =
        idleCpuPerNano == null || cpu0 < 0 || taken == 0
            ? Double.NaN
            : (cpu - idleCpuPerNano.applyAsDouble(wall) * wall) / taken / 1e6;
    double jitPerSnapshot =
        Double.isNaN(cpuPerSnapshot) || jit0 < 0 ? Double.NaN : (double) jit / taken / 1e6;
    return new Row(
        c.layout().ids().size(),
        c.layout().name(),
        c.layout().channels(),
        state,
        traffic,
        total,
        markers,
        upload,
        commit,
        failed,
        cpuPerSnapshot,
        jitPerSnapshot,
        c.coordinator().storeName(),
        path);
  }
}
