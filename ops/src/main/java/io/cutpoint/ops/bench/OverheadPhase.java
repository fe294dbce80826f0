package io.cutpoint.ops.bench;

import java.util.function.Consumer;

/**
 * Item 2: application throughput of a full mesh under saturating traffic with snapshots every
 * interval, divided by the same workload's throughput with snapshots off (alternating windows of
 * one run); item 5's peak heap is measured around it.
 */
final class OverheadPhase {

  /** The throughput comparison and the peak heap while it ran. */
  record Result(int workers, Alternating.Result run, long peakHeapBytes, long sendErrors) {}

  /** Threads sending as fast as the channels accept (one per core of the reference machine). */
  static final int SOURCE_THREADS = 2;

  private OverheadPhase() {}

  static Result run(BenchPlan plan, Consumer<String> progress) {
    int n = plan.overheadWorkers();
    progress.accept(
        "overhead: "
            + n
            + " workers, full mesh, snapshots every "
            + plan.intervalMillis()
            + " ms vs off");
    HeapPeak.reset();
    try (BenchCluster c =
            BenchCluster.start(Layout.mesh(n), plan, id -> new BenchApp(plan.smallStateBytes()));
        Traffic t = Traffic.saturate(LatencyPhase.routes(c), SOURCE_THREADS)) {
      Alternating.Result r = Alternating.run(c, plan);
      return new Result(n, r, HeapPeak.peakBytes(), t.errors());
    }
  }
}
