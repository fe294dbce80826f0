package io.cutpoint.ops.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * What one {@code cutpoint bench} run measures and for how long.
 *
 * @param workers cluster sizes of the snapshot-latency sweep
 * @param samples snapshots measured per small-state configuration
 * @param tailSamples snapshots measured per small-state configuration of at most {@link
 *     #TAIL_MAX_WORKERS} workers, where a p99 is a target: with fewer than 100, the p99 is the
 *     largest sample (the command line's {@code --samples} sets both)
 * @param largeSamples snapshots measured per large-state configuration
 * @param smallStateBytes the small state per worker
 * @param largeStateBytes the large state per worker
 * @param steadyRate messages per second, in total, of the "traffic" load
 * @param idleRings ring sizes measured idle with the small state only, after the sweep
 * @param windowMillis length of each throughput window
 * @param windows pairs of throughput windows (snapshots off and on, in alternating order) after one
 *     warm-up window of each
 * @param intervalMillis time between snapshots while they are on
 * @param overheadWorkers workers (full mesh) of the overhead workload
 * @param payloads payload sizes of the data-plane comparison
 * @param dataplaneRounds pairs of data-plane windows per payload, each measuring both systems
 * @param recoveryMib total state sizes of the recovery runs
 * @param recoveryWorkers workers sharing the recovery state
 * @param dataflow P values of the dataflow workload
 * @param dataDir parent of the coordinators' temporary stores (null: the system temp dir)
 * @param syncStore whether the coordinators' stores fsync their commits (the production setting)
 * @param markersAhead whether the workers take markers as they read them (the default) or in order
 *     behind the data before them
 * @param baselineMillis the shortest window over which each latency cluster's idle CPU rate is
 *     measured (it lasts as long as the cluster's first idle snapshots took, up to 4 times this)
 * @param limitSamples samples of each raw latency limit (marker hop, unary call; half as many
 *     commits)
 * @param limitIngestMib MiB written to measure the raw RocksDB ingest rate
 * @param largeStateMaxWorkers the largest cluster of the sweep measured with the large state too
 * @param incremental the shapes and fractions of the incremental snapshots (null: not measured)
 */
record BenchPlan(
    List<Integer> workers,
    List<Integer> idleRings,
    int samples,
    int tailSamples,
    int largeSamples,
    int smallStateBytes,
    int largeStateBytes,
    int steadyRate,
    long windowMillis,
    int windows,
    long intervalMillis,
    int overheadWorkers,
    List<Integer> payloads,
    int dataplaneRounds,
    List<Integer> recoveryMib,
    int recoveryWorkers,
    List<Integer> dataflow,
    Path dataDir,
    boolean syncStore,
    boolean markersAhead,
    long baselineMillis,
    int limitSamples,
    int limitIngestMib,
    int largeStateMaxWorkers,
    IncrementalPhase.Plan incremental) {

  /** The largest cluster whose 1 KiB rows take {@link #tailSamples}: their p99s are targets. */
  static final int TAIL_MAX_WORKERS = 8;

  /** Snapshots measured in a 1 KiB row of {@code workers} workers. */
  int smallSamples(int workers) {
    return workers <= TAIL_MAX_WORKERS ? tailSamples : samples;
  }

  /** The full run (under 10 minutes on 2 cores). */
  static BenchPlan standard() {
    return new BenchPlan(
        List.of(2, 4, 8, 16, 32),
        List.of(128),
        100,
        100,
        3,
        1024,
        16 << 20,
        20_000,
        1_000,
        8,
        100,
        4,
        List.of(16, 128, 1024),
        5,
        List.of(8, 128, 1024),
        4,
        List.of(2, 4, 8),
        null,
        true,
        true,
        1_000,
        400,
        128,
        Integer.MAX_VALUE,
        IncrementalPhase.Plan.standard());
  }

  /**
   * A short run (about 2 minutes on a quiet machine, 45 s of it the warm-up): fewer sizes, samples
   * and shorter windows; P = 8 of the dataflow is left to the full run (its snapshots took seconds
   * each on a loaded machine).
   */
  static BenchPlan quick() {
    return new BenchPlan(
        List.of(2, 8, 32),
        List.of(128),
        20,
        100,
        2,
        1024,
        16 << 20,
        20_000,
        400,
        6,
        100,
        4,
        List.of(16, 128, 1024),
        3,
        List.of(8, 128),
        4,
        List.of(2, 4),
        null,
        true,
        true,
        500,
        200,
        64,
        8,
        IncrementalPhase.Plan.quick());
  }

  /**
   * The plan with what the command line gave (null: keep). Explicit {@code --workers} without
   * {@code --idle-rings} measures no idle-only rings: the sweep is then what was asked for.
   */
  BenchPlan with(
      List<Integer> newWorkers,
      List<Integer> newIdleRings,
      Integer newSamples,
      Long newWindow,
      List<Integer> newRecovery,
      List<Integer> newDataflow,
      Integer largeKib,
      Path newDataDir) {
    return new BenchPlan(
        newWorkers != null ? newWorkers : workers,
        newIdleRings != null ? newIdleRings : newWorkers != null ? List.of() : idleRings,
        newSamples != null ? newSamples : samples,
        newSamples != null ? newSamples : tailSamples,
        largeSamples,
        smallStateBytes,
        largeKib != null ? largeKib << 10 : largeStateBytes,
        steadyRate,
        newWindow != null ? newWindow : windowMillis,
        windows,
        intervalMillis,
        overheadWorkers,
        payloads,
        dataplaneRounds,
        newRecovery != null ? newRecovery : recoveryMib,
        recoveryWorkers,
        newDataflow != null ? newDataflow : dataflow,
        newDataDir != null ? newDataDir : dataDir,
        syncStore,
        markersAhead,
        baselineMillis,
        limitSamples,
        limitIngestMib,
        largeStateMaxWorkers,
        incremental);
  }

  /** The same plan with store syncing on or off (off only to see what the fsync costs). */
  BenchPlan withSyncStore(boolean sync) {
    return new BenchPlan(
        workers,
        idleRings,
        samples,
        tailSamples,
        largeSamples,
        smallStateBytes,
        largeStateBytes,
        steadyRate,
        windowMillis,
        windows,
        intervalMillis,
        overheadWorkers,
        payloads,
        dataplaneRounds,
        recoveryMib,
        recoveryWorkers,
        dataflow,
        dataDir,
        sync,
        markersAhead,
        baselineMillis,
        limitSamples,
        limitIngestMib,
        largeStateMaxWorkers,
        incremental);
  }

  /** The same plan with markers taken as they are read ({@code true}) or in order. */
  BenchPlan withMarkersAhead(boolean ahead) {
    return new BenchPlan(
        workers,
        idleRings,
        samples,
        tailSamples,
        largeSamples,
        smallStateBytes,
        largeStateBytes,
        steadyRate,
        windowMillis,
        windows,
        intervalMillis,
        overheadWorkers,
        payloads,
        dataplaneRounds,
        recoveryMib,
        recoveryWorkers,
        dataflow,
        dataDir,
        syncStore,
        ahead,
        baselineMillis,
        limitSamples,
        limitIngestMib,
        largeStateMaxWorkers,
        incremental);
  }

  /** The same plan with these incremental snapshots (null: none). */
  BenchPlan withIncremental(IncrementalPhase.Plan newIncremental) {
    return new BenchPlan(
        workers,
        idleRings,
        samples,
        tailSamples,
        largeSamples,
        smallStateBytes,
        largeStateBytes,
        steadyRate,
        windowMillis,
        windows,
        intervalMillis,
        overheadWorkers,
        payloads,
        dataplaneRounds,
        recoveryMib,
        recoveryWorkers,
        dataflow,
        dataDir,
        syncStore,
        markersAhead,
        baselineMillis,
        limitSamples,
        limitIngestMib,
        largeStateMaxWorkers,
        newIncremental);
  }
}
