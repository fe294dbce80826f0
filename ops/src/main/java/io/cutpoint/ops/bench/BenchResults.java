package io.cutpoint.ops.bench;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one run measured, with the run's wall time and each phase's, in run order; {@code
 * incremental} is null when that section did not run.
 */
record BenchResults(
    String mode,
    WarmUpPhase.Result warmUp,
    LimitsPhase.Result limits,
    List<LatencyPhase.Row> latency,
    OverheadPhase.Result overhead,
    List<DataPlanePhase.Row> dataplane,
    RecoveryPhase.Result recovery,
    List<DataflowPhase.Row> dataflow,
    IncrementalPhase.Result incremental,
    double elapsedSeconds,
    Map<String, Double> phaseSeconds) {

  /**
   * The row of {@code workers} workers in {@code layout}, idle or under traffic, with the
   * coordinator on RocksDB.
   */
  Optional<LatencyPhase.Row> latency(int workers, String layout, boolean traffic, int stateBytes) {
    return latency(workers, layout, traffic, stateBytes, BenchCoordinator.ROCKSDB);
  }

  /** The same, with the coordinator on {@code store}. */
  Optional<LatencyPhase.Row> latency(
      int workers, String layout, boolean traffic, int stateBytes, String store) {
    return latency.stream()
        .filter(
            r ->
                r.workers() == workers
                    && r.layout().equals(layout)
                    && r.traffic() == traffic
                    && r.stateBytes() == stateBytes
                    && r.store().equals(store))
        .findFirst();
  }

  /**
   * The critical-path floor of a latency row, from this run's limits; NaN on the shared store,
   * whose commit is not the RocksDB one of the limits.
   */
  double limitMillis(LatencyPhase.Row row) {
    if (!row.store().equals(BenchCoordinator.ROCKSDB)) {
      return Double.NaN;
    }
    return CriticalPath.limitMillis(CriticalPath.layoutOf(row), row.stateBytes(), limits);
  }

  /** The data-plane ratio of the worst payload size. */
  double dataplaneRatio() {
    // a payload whose bare windows all delivered nothing (a loaded machine) has no ratio: not the
    // worst
    return dataplane.stream()
        .filter(r -> r.ratios().count() > 0)
        .mapToDouble(DataPlanePhase.Row::ratio)
        .min()
        .orElse(Double.NaN);
  }

  /** A local-recovery rollback over a remote one, of the largest measured size. */
  double localRecoveryRatio() {
    return recovery.rows().stream()
        .filter(r -> r.skipped() == null && !Double.isNaN(r.localRatio()))
        .reduce((a, b) -> b)
        .map(RecoveryPhase.Row::localRatio)
        .orElse(Double.NaN);
  }

  /** The recovery ratio of the worst measured size. */
  double recoveryRatio() {
    return recovery.rows().stream()
        .filter(r -> r.skipped() == null)
        .mapToDouble(RecoveryPhase.Row::ratio)
        .max()
        .orElse(Double.NaN);
  }
}
