package io.cutpoint.server.analysis;

import io.cutpoint.server.lifecycle.Coalescer;
import io.cutpoint.server.lifecycle.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Analyzes every committed snapshot and reports <em>changes</em>: a deadlock seen for the first
 * time (one log line and one {@link Listener#deadlockDetected} call, not one per snapshot while it
 * lasts), a deadlock gone (after a rollback, say), and the computation found terminated.
 *
 * <p>The coordinator calls {@link #snapshotCommitted(long)} after each commit; the analysis runs on
 * the given scheduler so the commit path never waits for channel reads, and analyzes the newest
 * snapshot committed when it begins: commits that come faster than {@code spacing} are analyzed as
 * one, the newest (a {@link Coalescer}). What it reports holds all the same: a deadlock lasts until
 * a rollback, and so does termination, so a later cut shows them too. A deadlock is known by its
 * core (the workers on its cycles); a snapshot older than the newest one analyzed is skipped, since
 * snapshots may commit out of order and an old cut says nothing new.
 *
 * <p>Confined to the scheduler's one thread ({@code cutpoint-maintenance} in a coordinator): no
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
  private final Coalescer runs;
  private final Listener listener;
  private final AtomicLong newestCommitted = new AtomicLong();

  // Confined to the scheduler's thread.
  private long newestAnalyzed;
  private final Set<SortedSet<String>> knownCores = new HashSet<>();
  private boolean terminated;

  /**
   * @param scheduler where the analyses run (a closed one drops them)
   * @param spacing the least time between the beginnings of two analyses
   */
  public ContinuousAnalysis(
      SnapshotAnalyzer analyzer,
      Scheduler scheduler,
      Clock clock,
      Duration spacing,
      Listener listener) {
    this.analyzer = Objects.requireNonNull(analyzer, "analyzer");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.runs = new Coalescer(scheduler, clock, spacing, () -> analyzeNow(newestCommitted.get()));
  }

  /** Asks for the analysis of a just committed snapshot; never blocks. Any thread. */
  public void snapshotCommitted(long snapshotId) {
    newestCommitted.accumulateAndGet(snapshotId, Math::max);
    runs.request();
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
    } catch (io.cutpoint.storage.NoSuchSnapshotException e) {
      LOG.debug("snapshot {} was deleted before it was analyzed", snapshotId);
      return false;
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
