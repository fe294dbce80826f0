package io.cutpoint.ops.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.Consumer;
import java.util.stream.LongStream;

/**
 * Before anything is measured: unmeasured snapshots on a {@link #WORKERS}-worker full mesh, in
 * rounds that alternate idle, under steady traffic and with the large state, until the JIT has
 * compiled what they run. A coordinator and its workers run for days; the numbers that matter are
 * those of compiled code, so the bench waits for the JIT rather than for a fixed time. On two cores
 * the compiler otherwise takes most of a core through the whole latency sweep (seen with {@code
 * jstat -compiler}: about one second of compilation per second for the first 30 s of a quick run),
 * and the first rows measure the JIT as much as Cutpoint.
 *
 * <p>Settled means: over the last cycle (one round of each setting) the JIT compiled for less than
 * {@link #SETTLED_FRACTION} of the wall time, after at least {@link #MIN_NANOS}. It gives up after
 * the longest warm-up asked for ({@code --warm-up-s}) and says so. Where the JVM does not report
 * compilation time, it runs for the minimum.
 */
final class WarmUpPhase {

  /** What the warm-up took; {@code jitSeconds} is -1 where the JVM does not report it. */
  record Result(double seconds, double jitSeconds, int snapshots, boolean settled) {}

  /** The warm-up cluster: a full mesh of this many workers (12 channels). */
  static final int WORKERS = 4;

  /** A round: snapshots for this long in one of the three settings. */
  static final long ROUND_NANOS = 1_000_000_000L;

  /** The shortest warm-up (the one-time 3 s of earlier versions). */
  static final long MIN_NANOS = 3_000_000_000L;

  /** The settings of the rounds: idle, under traffic, large state. */
  private static final int SETTINGS = 3;

  /**
   * The JIT is settled when it compiled for less than this share of the last cycle (one round of
   * each setting).
   */
  static final double SETTLED_FRACTION = 0.05;

  private WarmUpPhase() {}

  /**
   * Warms up in rounds for at most {@code maxMillis} (at least {@link #MIN_NANOS} or that), counted
   * once its cluster has started; 0: not at all.
   */
  static Result run(BenchPlan plan, Consumer<String> progress, long maxMillis) {
    if (maxMillis == 0) {
      return new Result(0, -1, 0, false);
    }
    progress.accept(
        "warm-up: unmeasured snapshots on "
            + WORKERS
            + " workers, full mesh, until the JIT has settled");
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
    long start = System.nanoTime();
    long jit0 = timed ? jit.getTotalCompilationTime() : 0;
    int snapshots = 0;
    boolean settled = false;
    long[] wall = new long[SETTINGS];
    long[] compiling = new long[SETTINGS];
    try (BenchCluster c =
        BenchCluster.start(
            Layout.mesh(WORKERS), plan, id -> new BenchApp(plan.smallStateBytes()))) {
      // the rounds get the whole budget: a cluster slow to start must not leave them none
      long roundsStart = System.nanoTime();
      long max = roundsStart + maxMillis * 1_000_000;
      long min = Math.min(roundsStart + MIN_NANOS, max);
      for (int round = 0; System.nanoTime() < max; round++) {
        long roundStart = System.nanoTime();
        long roundJit = timed ? jit.getTotalCompilationTime() : 0;
        snapshots += round(c, plan, round % SETTINGS, Math.min(roundStart + ROUND_NANOS, max));
        wall[round % SETTINGS] = System.nanoTime() - roundStart;
        compiling[round % SETTINGS] =
            timed ? (jit.getTotalCompilationTime() - roundJit) * 1_000_000 : 0;
        if (System.nanoTime() < min || round < SETTINGS - 1) {
          continue;
        }
        if (!timed || settled(compiling, wall)) {
          settled = timed;
          break;
        }
      }
    }
    double jitSeconds = timed ? (jit.getTotalCompilationTime() - jit0) / 1e3 : -1;
    return new Result((System.nanoTime() - start) / 1e9, jitSeconds, snapshots, settled);
  }

  /** Whether the JIT compiled for less than {@link #SETTLED_FRACTION} of the last cycle. */
  static boolean settled(long[] compilingNanos, long[] wallNanos) {
    return LongStream.of(compilingNanos).sum() < SETTLED_FRACTION * LongStream.of(wallNanos).sum();
  }

  /**
   * One round's snapshots, until {@code end} ({@link System#nanoTime()}): {@code kind} 0 idle, 1
   * under traffic, 2 with the large state.
   */
  private static int round(BenchCluster c, BenchPlan plan, int kind, long end) {
    int state = kind == 2 ? plan.largeStateBytes() : plan.smallStateBytes();
    c.nodes().forEach(node -> ((BenchApp) node.app()).stateBytes(state));
    int taken = 0;
    try (Traffic t = kind == 1 ? Traffic.steady(LatencyPhase.routes(c), plan.steadyRate()) : null) {
      while (System.nanoTime() < end) {
        if (LatencyPhase.snapshotOrNull(c) != null) {
          taken++;
        } else {
          Pause.millis(10);
        }
      }
    }
    return taken;
  }
}
