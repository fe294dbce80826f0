package io.cutpoint.ops.bench;

/**
 * Runs windows of equal length over a cluster that is under traffic, alternating snapshots off and
 * on (after one warm-up window), and measures application throughput in each.
 */
final class Alternating {

  /** Messages per second with snapshots off and on, and the snapshots of the "on" windows. */
  record Result(double offRate, double onRate, Samples latency, long completed, long failed,
      long inFlightBytes) {
    double ratio() {
      return offRate == 0 ? Double.NaN : onRate / offRate;
    }

    /** Mean recorded in-flight bytes per completed snapshot. */
    double inFlightBytesPerSnapshot() {
      return completed == 0 ? Double.NaN : (double) inFlightBytes / completed;
    }
  }

  private Alternating() {}

  static Result run(BenchCluster cluster, BenchPlan plan) {
    window(cluster, plan.windowMillis()); // warm-up
    long offMessages = 0;
    long onMessages = 0;
    long offNanos = 0;
    long onNanos = 0;
    Samples latency = new Samples();
    long completed = 0;
    long failed = 0;
    long inFlight = 0;
    for (int i = 0; i < plan.windows(); i++) {
      if (i % 2 == 1) {
        try (Snapshotter s = new Snapshotter(cluster.coordinator(), plan.intervalMillis(), latency)) {
          s.record(true);
          long[] w = window(cluster, plan.windowMillis());
          onMessages += w[0];
          onNanos += w[1];
          s.record(false);
          completed += s.completed();
          failed += s.failed();
          inFlight += s.inFlightBytes();
        }
      } else {
        long[] w = window(cluster, plan.windowMillis());
        offMessages += w[0];
        offNanos += w[1];
      }
    }
    return new Result(rate(offMessages, offNanos), rate(onMessages, onNanos), latency, completed, failed,
        inFlight);
  }

  private static long[] window(BenchCluster cluster, long millis) {
    long start = System.nanoTime();
    long before = cluster.received();
    Pause.untilNanos(start + millis * 1_000_000);
    long after = cluster.received();
    return new long[] {after - before, System.nanoTime() - start};
  }

  private static double rate(long messages, long nanos) {
    return nanos == 0 ? 0 : messages * 1e9 / nanos;
  }
}
