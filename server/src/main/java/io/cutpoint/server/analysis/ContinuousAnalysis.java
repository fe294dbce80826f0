package io.cutpoint.server.analysis;

import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Analyzes every committed snapshot and reports <em>changes</em>: a deadlock seen for the first
 * time (one log line and one {@link Listener#deadlockDetected} call, not one per snapshot while it
 * lasts), a deadlock gone (after a rollback, say), and the computation found terminated.
 *
 * <p>The coordinator calls {@link #snapshotCommitted(long)} after each commit; the analysis runs on
 * the given executor so the commit path never waits for channel reads. A deadlock is known by its
 * core (the workers on its cycles); a snapshot older than the newest one analyzed is skipped, since
 * snapshots may commit out of order and an old cut says nothing new.
 *
 * <p>Confined to the executor's one thread ({@code cutpoint-maintenance} in a coordinator): no
 * lock. Tests call {@link #analyzeNow} on their own thread, one call at a time.
 */
public final class ContinuousAnalysis {

  private static final Logger LOG = LoggerFactory.getLogger(ContinuousAnalysis.class);

  /** What the coordinator hooks to events and metrics. Called on the executor's thread. */
  public interface Listener {
    /** {@code deadlock} is in this snapshot and was not in the previous one analyzed. */
    default void deadlockDetected(long snapshotId, Deadlock deadlock) {}

    /** The deadlock with this core was in the previous snapshot analyzed and is not in this one. */
    default void deadlockCleared(long snapshotId, SortedSet<String> core) {}

    /** This snapshot shows termination and the previous one analyzed did not. */
    default void terminationDetected(long snapshotId, TerminationVerdict verdict) {}

    /** Every analysis, for metrics (say, a gauge of deadlocked workers). */
    default void analyzed(long snapshotId, CutAnalysis analysis) {}

    /** The snapshot could not be analyzed (gone, corrupt, storage failure). */
    default void analysisFailed(long snapshotId, RuntimeException error) {}
  }

  private final SnapshotAnalyzer analyzer;
  private final Executor executor;
  private final Listener listener;

  // Guarded by this.
  private long newestAnalyzed;
  private final Set<SortedSet<String>> knownCores = new HashSet<>();
  private boolean terminated;

  public ContinuousAnalysis(SnapshotAnalyzer analyzer, Executor executor, Listener listener) {
    this.analyzer = Objects.requireNonNull(analyzer, "analyzer");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** Schedules the analysis of a just committed snapshot; never blocks, never throws. */
  public void snapshotCommitted(long snapshotId) {
    try {
      executor.execute(() -> analyzeNow(snapshotId));
    } catch (RejectedExecutionException e) {
      LOG.debug("analysis of snapshot {} not scheduled: executor shut down", snapshotId);
    }
  }

  /**
   * Analyzes {@code snapshotId} on the calling thread and reports changes.
   *
   * @return false when it was skipped (older than the newest analyzed) or failed
   */
  public boolean analyzeNow(long snapshotId) {
    if (snapshotId <= newestAnalyzed) {
      return false;
    }
    CutAnalysis analysis;
    try {
      analysis = analyzer.analyzeCut(snapshotId);
    } catch (RuntimeException e) {
      LOG.warn("analysis of snapshot {} failed: {}", snapshotId, e.getMessage());
      listener.analysisFailed(snapshotId, e);
      return false;
    }
    newestAnalyzed = snapshotId;
    listener.analyzed(snapshotId, analysis);

    Set<SortedSet<String>> cores = new HashSet<>();
    for (Deadlock d : analysis.deadlock().sets()) {
      cores.add(d.core());
      if (!knownCores.contains(d.core())) {
        LOG.warn(
            "snapshot {}: deadlock among {} (cycle {}), {} workers blocked for good: {}",
            snapshotId,
            d.core(),
            String.join(" -> ", d.cycle()) + " -> " + d.cycle().get(0),
            d.workers().size(),
            d.workers());
        listener.deadlockDetected(snapshotId, d);
      }
    }
    for (SortedSet<String> core : knownCores) {
      if (!cores.contains(core)) {
        LOG.info("snapshot {}: the deadlock among {} is gone", snapshotId, core);
        listener.deadlockCleared(snapshotId, core);
      }
    }
    knownCores.clear();
    knownCores.addAll(cores);

    boolean nowTerminated = analysis.termination().terminated();
    if (nowTerminated && !terminated) {
      LOG.info("snapshot {}: the computation has terminated", snapshotId);
      listener.terminationDetected(snapshotId, analysis.termination());
    }
    terminated = nowTerminated;
    return true;
  }
}
