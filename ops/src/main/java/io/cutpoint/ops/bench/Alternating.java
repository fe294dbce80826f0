package io.cutpoint.ops.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Measures application throughput of a cluster under traffic with snapshots off (A) and on (B):
 * after one warm-up window of each, pairs of equal windows, in the order AB, BA, AB, ... so that a
 * drift of the machine's load falls on both sides alike. Each pair gives one ratio on / off; the
 * result is their median with its spread (min and max). Process CPU time is summed per side and
 * divided by the messages of that side.
 */
final class Alternating {

  /**
   * Messages per second over all windows of each side, the per-pair ratios, the snapshots of the
   * "on" windows (with each step of their critical paths, as {@link BenchCoordinator.Taken#steps}),
   * and CPU nanoseconds per message of each side.
   */
  record Result(
      double offRate,
      double onRate,
      Samples ratios,
      Samples latency,
      Map<String, Samples> criticalPath,
      long completed,
      long failed,
      long inFlightBytes,
      double offCpuNanosPerMessage,
      double onCpuNanosPerMessage) {
    /** The median of the per-pair ratios on / off. */
    double ratio() {
      return ratios.p50();
    }

    /**
     * A median above 1.0 says snapshots made the workload faster: that is the machine's noise, not
     * a result; the ratio is then only an upper bound of nothing and must not be read as a gain.
     */
    boolean noise() {
      return ratio() > 1.0;
    }

    /** Mean recorded in-flight bytes per completed snapshot. */
    double inFlightBytesPerSnapshot() {
      return completed == 0 ? Double.NaN : (double) inFlightBytes / completed;
    }
  }

  /** Messages, wall nanoseconds and CPU nanoseconds (-1: not known) of one window. */
  record Window(long messages, long nanos, long cpuNanos) {
    double rate() {
      return nanos == 0 ? 0 : messages * 1e9 / nanos;
    }
  }

  /**
   * One window of the schedule: its pair (-1: the unmeasured warm-up) and its side ({@code b}: the
   * side measured against the reference {@code a}).
   */
  record Turn(int pair, boolean b) {
    boolean warmUp() {
      return pair < 0;
    }
  }

  /** One window of side A or B, as the caller measures it. */
  interface Measure {
    Window window(boolean b, boolean warmUp);
  }

  /** Per-pair ratios B / A, and the sums over the measured windows of each side. */
  record Pairs(Samples ratios, long[] a, long[] b) {
    /** Messages per second of one side over all its measured windows. */
    static double rate(long[] sum) {
      return sum[1] == 0 ? 0 : sum[0] * 1e9 / sum[1];
    }

    /** CPU nanoseconds per message of one side; NaN without messages or CPU time. */
    static double perMessage(long[] sum) {
      return sum[0] == 0 || sum[2] < 0 ? Double.NaN : (double) sum[2] / sum[0];
    }
  }

  private Alternating() {}

  /**
   * The order of the windows: one unmeasured window of each side, A then B, then {@code pairs}
   * pairs in the order AB, BA, AB, ...
   */
  static List<Turn> schedule(int pairs) {
    List<Turn> turns = new ArrayList<>();
    turns.add(new Turn(-1, false));
    turns.add(new Turn(-1, true));
    for (int pair = 0; pair < pairs; pair++) {
      boolean bFirst = pair % 2 == 1;
      turns.add(new Turn(pair, bFirst));
      turns.add(new Turn(pair, !bFirst));
    }
    return turns;
  }

  /**
   * Runs the {@link #schedule}; a pair whose A window counted nothing gives no ratio (a loaded
   * machine), one whose B window counted nothing gives 0.
   */
  static Pairs interleave(int pairs, Measure measure) {
    Window[] a = new Window[pairs];
    Window[] b = new Window[pairs];
    for (Turn turn : schedule(pairs)) {
      Window w = measure.window(turn.b(), turn.warmUp());
      if (!turn.warmUp()) {
        (turn.b() ? b : a)[turn.pair()] = w;
      }
    }
    Samples ratios = new Samples();
    long[] sumA = new long[3]; // messages, nanos, cpu
    long[] sumB = new long[3];
    for (int pair = 0; pair < pairs; pair++) {
      if (a[pair].rate() > 0) {
        ratios.add(b[pair].rate() / a[pair].rate());
      }
      add(sumA, a[pair]);
      add(sumB, b[pair]);
    }
    return new Pairs(ratios, sumA, sumB);
  }

  static Result run(BenchCluster cluster, BenchPlan plan) {
    Samples latency = new Samples();
    Map<String, Samples> path = new LinkedHashMap<>(); // windows run one after the other
    long[] snapshots = new long[3]; // completed, failed, in-flight bytes
    Pairs p =
        interleave(
            plan.windows(),
            (on, warmUp) -> window(cluster, plan, on, latency, path, warmUp ? null : snapshots));
    return new Result(
        Pairs.rate(p.a()),
        Pairs.rate(p.b()),
        p.ratios(),
        latency,
        path,
        snapshots[0],
        snapshots[1],
        snapshots[2],
        Pairs.perMessage(p.a()),
        Pairs.perMessage(p.b()));
  }

  /**
   * One window; with snapshots on, a {@link Snapshotter} runs for exactly its length (plus the
   * last).
   */
  private static Window window(
      BenchCluster cluster,
      BenchPlan plan,
      boolean snapshotsOn,
      Samples latency,
      Map<String, Samples> path,
      long[] snapshots) {
    if (!snapshotsOn) {
      return measure(cluster, plan.windowMillis());
    }
    Snapshotter s =
        new Snapshotter(
            cluster.coordinator(),
            plan.intervalMillis(),
            snapshots == null ? new Samples() : latency,
            snapshots == null ? new LinkedHashMap<>() : path);
    Window w;
    try (s) {
      s.record(true);
      w = measure(cluster, plan.windowMillis());
      s.record(false);
    }
    // counted once close() has waited for the last snapshot: one that started in the window and
    // ended after it has its latency sampled, and is counted too (a loaded machine left 0 here)
    if (snapshots != null) {
      snapshots[0] += s.completed();
      snapshots[1] += s.failed();
      snapshots[2] += s.inFlightBytes();
    }
    return w;
  }

  private static Window measure(BenchCluster cluster, long millis) {
    long cpu = ProcessCpu.nanos();
    long start = System.nanoTime();
    long before = cluster.received();
    Pause.untilNanos(start + millis * 1_000_000);
    long after = cluster.received();
    long end = System.nanoTime();
    return new Window(after - before, end - start, cpu < 0 ? -1 : ProcessCpu.nanos() - cpu);
  }

  private static void add(long[] sum, Window w) {
    sum[0] += w.messages();
    sum[1] += w.nanos();
    sum[2] = sum[2] < 0 || w.cpuNanos() < 0 ? -1 : sum[2] + w.cpuNanos();
  }
}
