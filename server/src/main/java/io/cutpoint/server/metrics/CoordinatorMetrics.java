package io.cutpoint.server.metrics;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.lifecycle.CompletedSnapshot;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.Piece;
import io.cutpoint.server.lifecycle.SnapshotBlock;
import io.cutpoint.server.lifecycle.SnapshotListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The coordinator's meters. Names are fixed (dashboards and alerts match them); the Prometheus
 * registry adds the unit suffixes. Gauges read atomics that the coordinator updates, so a scrape
 * never takes a coordinator lock; this object holds the strong references the gauges need.
 */
public final class CoordinatorMetrics implements SnapshotListener {

  private final MeterRegistry registry;
  private final Clock clock;
  private final Map<String, Timer> durations = new java.util.HashMap<>();
  private final Map<String, Counter> outcomes = new java.util.HashMap<>();
  private final Timer markerPropagation;
  private final Timer upload;
  private final Timer commit;
  private final DistributionSummary stateSize;
  private final DistributionSummary channelStateSize;
  private final DistributionSummary inflight;
  private final Counter markers;
  private final Counter stateUploaded;
  private final Counter stateDeduplicated;
  private final Counter chunksQueried;
  private final Counter chunksHeld;
  private final AtomicLong latestCompleteMs = new AtomicLong();
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicLong storeBytes = new AtomicLong();
  private final AtomicLong storedChunks = new AtomicLong();
  private final java.util.function.ToIntFunction<WorkerState> workers;

  /** The gauges, which read this coordinator's state: removed when it closes. */
  private final java.util.List<Gauge> gauges = new java.util.ArrayList<>();

  private final Counter rollbacksCompleted;
  private final Counter rollbacksFailed;
  private final Counter restoresLocal;
  private final Counter restoresRemote;
  private final Timer rollbackDuration;
  private final java.util.concurrent.atomic.AtomicReference<SnapshotBlock.Reason> blocked =
      new java.util.concurrent.atomic.AtomicReference<>();

  /**
   * @param workersByState the number of workers in a state; read on every scrape, must not block
   */
  public CoordinatorMetrics(
      MeterRegistry registry,
      Clock clock,
      java.util.function.ToIntFunction<WorkerState> workersByState) {
    this.registry = registry;
    this.workers = workersByState;
    this.clock = clock;
    for (String outcome : new String[] {"complete", "aborted", "failed"}) {
      durations.put(
          outcome,
          Timer.builder("cutpoint.snapshot.duration")
              .description("Time from the start of a snapshot to its outcome")
              .tag("outcome", outcome)
              .publishPercentileHistogram()
              .minimumExpectedValue(Duration.ofMillis(1))
              .maximumExpectedValue(Duration.ofSeconds(60))
              .register(registry));
      outcomes.put(
          outcome,
          Counter.builder("cutpoint.snapshots")
              .description("Snapshots by outcome")
              .tag("outcome", outcome)
              .register(registry));
    }
    markerPropagation = phase("marker_propagation");
    upload = phase("upload");
    commit = phase("commit");
    stateSize =
        DistributionSummary.builder("cutpoint.snapshot.state.size")
            .description("Application state bytes per worker piece")
            .baseUnit("bytes")
            .register(registry);
    channelStateSize =
        DistributionSummary.builder("cutpoint.snapshot.channel.state.size")
            .description("Recorded channel bytes per complete snapshot")
            .baseUnit("bytes")
            .register(registry);
    inflight =
        DistributionSummary.builder("cutpoint.snapshot.inflight.messages")
            .description("Messages recorded in transit per complete snapshot")
            .register(registry);
    markers =
        Counter.builder("cutpoint.snapshot.markers")
            .description("Markers sent (one per channel per complete snapshot)")
            .register(registry);
    stateUploaded =
        Counter.builder("cutpoint.state.uploaded")
            .description("State bytes that workers uploaded in their pieces")
            .baseUnit("bytes")
            .register(registry);
    stateDeduplicated =
        Counter.builder("cutpoint.state.deduplicated")
            .description(
                "State bytes of delivered pieces that were not uploaded: the store held their"
                    + " content chunks")
            .baseUnit("bytes")
            .register(registry);
    restoresLocal =
        Counter.builder("cutpoint.rollback.restores")
            .description("Workers restored by completed rollbacks, by where their state came from")
            .tag("source", "local")
            .register(registry);
    restoresRemote =
        Counter.builder("cutpoint.rollback.restores")
            .description("Workers restored by completed rollbacks, by where their state came from")
            .tag("source", "download")
            .register(registry);
    chunksQueried =
        Counter.builder("cutpoint.content.chunks.queried")
            .description("Content chunks that workers asked the store for before an upload")
            .register(registry);
    chunksHeld =
        Counter.builder("cutpoint.content.chunks.held")
            .description("Queried content chunks the store already held (not uploaded again)")
            .register(registry);
    gauges.add(
        Gauge.builder("cutpoint.store.content.chunks", storedChunks, AtomicLong::get)
            .description("Content chunks in the store, each kept once for every snapshot using it")
            .register(registry));
    gauges.add(
        Gauge.builder("cutpoint.snapshot.latest.age", this, CoordinatorMetrics::latestAgeSeconds)
            .description("Age of the newest complete snapshot")
            .baseUnit("seconds")
            .register(registry));
    gauges.add(
        Gauge.builder("cutpoint.snapshots.pending", pending, AtomicInteger::get)
            .description("Snapshots in flight")
            .register(registry));
    gauges.add(
        Gauge.builder("cutpoint.store.size", storeBytes, AtomicLong::get)
            .description("Approximate bytes of the snapshot store on disk")
            .baseUnit("bytes")
            .register(registry));
    for (WorkerState s :
        new WorkerState[] {
          WorkerState.WORKER_STATE_RUNNING,
          WorkerState.WORKER_STATE_LOST,
          WorkerState.WORKER_STATE_HALTED,
          WorkerState.WORKER_STATE_RESTORED
        }) {
      gauges.add(
          Gauge.builder("cutpoint.workers", this, m -> m.workers.applyAsInt(s))
              .description("Workers by state")
              .tag("state", stateTag(s))
              .register(registry));
    }
    for (SnapshotBlock.Reason r : SnapshotBlock.Reason.values()) {
      gauges.add(
          Gauge.builder("cutpoint.snapshots.blocked", blocked, b -> b.get() == r ? 1 : 0)
              .description("1 while periodic snapshots cannot start for this reason, else 0")
              .tag("reason", r.tag())
              .register(registry));
    }
    rollbacksCompleted =
        Counter.builder("cutpoint.rollbacks")
            .description("Rollbacks by outcome")
            .tag("outcome", "completed")
            .register(registry);
    rollbacksFailed =
        Counter.builder("cutpoint.rollbacks")
            .description("Rollbacks by outcome")
            .tag("outcome", "failed")
            .register(registry);
    rollbackDuration =
        Timer.builder("cutpoint.rollback.duration")
            .description("Time from a rollback request to every worker resumed")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofSeconds(60))
            .register(registry);
  }

  private Timer phase(String phase) {
    return Timer.builder("cutpoint.snapshot.phase.duration")
        .description("Time spent in each phase of a snapshot")
        .tag("phase", phase)
        .register(registry);
  }

  static String stateTag(WorkerState s) {
    return switch (s) {
      case WORKER_STATE_RUNNING -> "running";
      case WORKER_STATE_LOST -> "lost";
      case WORKER_STATE_HALTED -> "halted";
      case WORKER_STATE_RESTORED -> "restored";
      case WORKER_STATE_UNSPECIFIED, UNRECOGNIZED -> "unknown";
    };
  }

  /**
   * Removes the gauges from the registry: they read this coordinator's state, and a registry that
   * outlives it (an HA node's, over its leader terms) must show the next coordinator's instead.
   */
  public void close() {
    gauges.forEach(registry::remove);
    gauges.clear();
  }

  private double latestAgeSeconds() {
    long at = latestCompleteMs.get();
    return at == 0 ? Double.NaN : Math.max(0, clock.millis() - at) / 1000.0;
  }

  /** Periodic snapshots are blocked for {@code reason}; null = they start. */
  public void snapshotsBlocked(SnapshotBlock.Reason reason) {
    blocked.set(reason);
  }

  /** Sets the newest complete snapshot's finish time (e.g. from the store at start). */
  public void latestComplete(long finishedAtUnixMs) {
    latestCompleteMs.accumulateAndGet(finishedAtUnixMs, Math::max);
  }

  public void storeSize(long bytes) {
    storeBytes.set(bytes);
  }

  /** Content chunks in the store, about (negative: the store does not keep them). */
  public void contentChunks(long chunks) {
    storedChunks.set(Math.max(0, chunks));
  }

  /** A worker's piece arrived, with {@code uploaded} of its state bytes sent (the rest held). */
  public void piece(Piece piece, long uploaded) {
    long bytes = piece.meta().getStateBytes();
    stateSize.record(bytes);
    stateUploaded.increment(uploaded);
    stateDeduplicated.increment(Math.max(0, bytes - uploaded));
  }

  /** A {@code FindChunks} query: {@code queried} content chunks, {@code held} of them stored. */
  public void chunksFound(int queried, int held) {
    chunksQueried.increment(queried);
    chunksHeld.increment(held);
  }

  /** For the rollback: a completed rollback's workers, by where they restored their state from. */
  public void restores(int local, int remote) {
    restoresLocal.increment(local);
    restoresRemote.increment(remote);
  }

  /** For the rollback: one rollback ended. */
  public void rollback(boolean completed, Duration duration) {
    (completed ? rollbacksCompleted : rollbacksFailed).increment();
    rollbackDuration.record(duration);
  }

  @Override
  public void started(SnapshotManifest pending) {
    this.pending.incrementAndGet();
  }

  @Override
  public void completed(CompletedSnapshot snapshot) {
    pending.decrementAndGet();
    SnapshotManifest m = snapshot.manifest();
    durations.get("complete").record(snapshot.duration());
    outcomes.get("complete").increment();
    markerPropagation.record(m.getTimings().getMarkerPropagationMicros(), TimeUnit.MICROSECONDS);
    upload.record(m.getTimings().getUploadMicros(), TimeUnit.MICROSECONDS);
    commit.record(m.getTimings().getCommitMicros(), TimeUnit.MICROSECONDS);
    channelStateSize.record(m.getTotalChannelBytes());
    inflight.record(m.getInFlightMessages());
    markers.increment(snapshot.markers());
    latestComplete(m.getFinishedAtUnixMs());
  }

  @Override
  public void ended(
      SnapshotManifest manifest, FailureReason reason, Duration duration, boolean exceeded) {
    String outcome =
        manifest.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_FAILED ? "failed" : "aborted";
    pending.decrementAndGet();
    durations.get(outcome).record(duration);
    outcomes.get(outcome).increment();
  }
}
