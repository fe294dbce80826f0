package io.cutpoint.ops.bench;

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
   * "on" windows, and CPU nanoseconds per message of each side.
   */
  record Result(
      double offRate,
      double onRate,
      Samples ratios,
      Samples latency,
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

  /** Messages, wall nanoseconds and CPU nanoseconds of one window. */
  private record Window(long messages, long nanos, long cpuNanos) {
    double rate() {
      return nanos == 0 ? 0 : messages * 1e9 / nanos;
    }
  }

  private Alternating() {}

  static Result run(BenchCluster cluster, BenchPlan plan) {
    Samples latency = new Samples();
    long[] snapshots = new long[3]; // completed, failed, in-flight bytes
    window(cluster, plan, false, latency, null); // warm-up of both sides, not counted
    window(cluster, plan, true, latency, null);
    Samples ratios = new Samples();
    long[] off = new long[3]; // messages, nanos, cpu
    long[] on = new long[3];
    for (int pair = 0; pair < plan.windows(); pair++) {
      Window a;
      Window b;
      if (pair % 2 == 0) {
        a = window(cluster, plan, false, latency, snapshots);
        b = window(cluster, plan, true, latency, snapshots);
      } else {
        b = window(cluster, plan, true, latency, snapshots);
        a = window(cluster, plan, false, latency, snapshots);
      }
      if (a.rate() > 0) {
        ratios.add(b.rate() / a.rate());
      }
      add(off, a);
      add(on, b);
    }
    return new Result(
        rate(off),
        rate(on),
        ratios,
        latency,
        snapshots[0],
        snapshots[1],
        snapshots[2],
        perMessage(off),
        perMessage(on));
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
      long[] snapshots) {
    if (!snapshotsOn) {
      return measure(cluster, plan.windowMillis());
    }
    Snapshotter s =
        new Snapshotter(
            cluster.coordinator(),
            plan.intervalMillis(),
            snapshots == null ? new Samples() : latency);
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

  private static double rate(long[] sum) {
    return sum[1] == 0 ? 0 : sum[0] * 1e9 / sum[1];
  }

  private static double perMessage(long[] sum) {
    return sum[0] == 0 || sum[2] < 0 ? Double.NaN : (double) sum[2] / sum[0];
  }
}
