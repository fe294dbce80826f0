package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.PhaseTimings;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.RecentIds;
import io.cutpoint.cut.Violation;
import io.cutpoint.server.membership.InitiatorSelection;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import io.cutpoint.util.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot lifecycle: PENDING -> COMPLETE | ABORTED | FAILED. Starts snapshots (checking the
 * topology, the maximum concurrent snapshots and the minimum pause), collects the workers' pieces,
 * verifies the cut with {@link CutVerifier} and commits it, and aborts on timeout, lost workers
 * and topology changes. Time comes from the injected {@link Clock}, timers from the injected
 * {@link Scheduler}; it talks to workers only through {@link WorkerCommands}. Thread-safe (one
 * lock); every timer re-checks under the lock that its snapshot is still pending.
 */
public final class SnapshotLifecycle {

  private static final Logger log = LoggerFactory.getLogger(SnapshotLifecycle.class);
  private static final int RECENT_IDS = 1024;

  /** The settings the lifecycle needs (from {@code CoordinatorConfig}). */
  public record Settings(Duration timeout, Duration minPause, int maxConcurrent, int tolerableFailures) {}

  private final Settings settings;
  private final Clock clock;
  private final Scheduler scheduler;
  private final SnapshotStore store;
  private final Supplier<Membership.View> cluster;
  private final WorkerCommands commands;
  private final SnapshotListener listener;
  private final FailurePolicy policy;
  private final SortedMap<Long, PendingSnapshot> pending = new TreeMap<>();
  private final RecentIds recent = new RecentIds(RECENT_IDS);
  private Instant lastEnded;
  private SnapshotBlock paused;

  public SnapshotLifecycle(Settings settings, Clock clock, Scheduler scheduler, SnapshotStore store,
      Supplier<Membership.View> cluster, WorkerCommands commands, SnapshotListener listener) {
    this.settings = settings;
    this.clock = clock;
    this.scheduler = scheduler;
    this.store = store;
    this.cluster = cluster;
    this.commands = commands;
    this.listener = listener;
    this.policy = new FailurePolicy(settings.tolerableFailures());
  }

  /**
   * Starts a snapshot. With a {@code requester} (a worker asking for a snapshot) that worker is
   * an initiator and is not sent a start command (it initiates when it gets the id); the other
   * needed initiators are.
   */
  public synchronized TriggerResult trigger(SnapshotTrigger trigger, String requester) {
    Membership.View view = cluster.get();
    Optional<SnapshotBlock> blocked = blocked(view);
    if (blocked.isPresent()) {
      return new TriggerResult.Refused(blocked.get());
    }
    if (requester != null && !view.members().containsKey(requester)) {
      return new TriggerResult.Refused(TriggerResult.Reason.NOT_READY, "unknown worker " + requester);
    }
    if (pending.size() >= settings.maxConcurrent()) {
      return new TriggerResult.Refused(TriggerResult.Reason.TOO_MANY_PENDING,
          pending.size() + " snapshot(s) pending, at most " + settings.maxConcurrent() + " at once: " + pending.keySet());
    }
    Instant now = clock.instant();
    if (lastEnded != null && now.isBefore(lastEnded.plus(settings.minPause()))) {
      return new TriggerResult.Refused(TriggerResult.Reason.TOO_SOON, "the minimum pause of "
          + settings.minPause() + " since the last snapshot has not passed");
    }
    SortedSet<String> initiators = InitiatorSelection.selectWith(
        view.topology().workerIds(), view.topology().channels(), requester);
    PendingSnapshot p;
    try {
      long id = store.allocateSnapshotId();
      p = new PendingSnapshot(id, store.epoch(), trigger, now, initiators, view.topology());
      store.createPending(p.manifest());
    } catch (StoreException e) {
      log.error("could not record a new snapshot", e);
      return new TriggerResult.Refused(SnapshotBlock.of(SnapshotBlock.Reason.STORE_UNAVAILABLE,
          "store failed: " + e.getMessage()));
    }
    pending.put(p.id(), p);
    long id = p.id();
    p.timeout(scheduler.schedule(() -> onTimeout(id), settings.timeout()));
    listener.started(p.manifest());
    for (String initiator : initiators) {
      if (!initiator.equals(requester)) {
        commands.startSnapshot(initiator, p.id(), p.epoch());
      }
    }
    return new TriggerResult.Started(p.manifest(), p.outcome());
  }

  /** The state of the cluster that keeps any snapshot from starting, if there is one. */
  private Optional<SnapshotBlock> blocked(Membership.View view) {
    if (paused != null) {
      return Optional.of(paused);
    }
    if (view.members().isEmpty()) {
      return Optional.of(SnapshotBlock.of(SnapshotBlock.Reason.NO_WORKERS, "no workers have joined"));
    }
    if (!view.allLive()) {
      return Optional.of(new SnapshotBlock(SnapshotBlock.Reason.WORKERS_LOST, view.lost(),
          "workers without a live session: " + view.lost()));
    }
    List<Membership.Member> notRunning = view.members().values().stream()
        .filter(m -> m.state() != io.cutpoint.api.v1.WorkerState.WORKER_STATE_RUNNING).toList();
    if (!notRunning.isEmpty()) {
      return Optional.of(new SnapshotBlock(SnapshotBlock.Reason.WORKERS_NOT_RUNNING,
          notRunning.stream().map(m -> m.decl().workerId()).toList(), "workers not running: "
              + notRunning.stream().map(m -> m.decl().workerId() + " (" + m.state() + ")").toList()));
    }
    if (!view.topology().closed()) {
      return Optional.of(SnapshotBlock.of(SnapshotBlock.Reason.TOPOLOGY_OPEN, "the topology is not "
          + "closed; channels declared by one end only: " + view.topology().pendingChannels()));
    }
    return Optional.empty();
  }

  /**
   * Whether the upload of {@code workerId}'s piece of {@code snapshotId} may proceed. An admitted
   * upload holds the worker's slot until it is acknowledged or {@linkplain #release released}: a
   * second upload of the same piece meanwhile gets {@link Admission#IN_PROGRESS}, so two streams
   * can never interleave their parts in the store.
   *
   * @param uploader identifies the upload (its receiver); the same object must acknowledge or
   *     release it
   */
  public synchronized Admission admit(long snapshotId, String workerId, Object uploader) {
    PendingSnapshot p = pending.get(snapshotId);
    if (p == null) {
      return recent.contains(snapshotId) ? Admission.ENDED : Admission.UNKNOWN;
    }
    if (!p.covers(workerId)) {
      return Admission.NOT_A_PARTICIPANT;
    }
    if (p.hasPiece(workerId)) {
      return Admission.DUPLICATE;
    }
    if (!p.reserve(workerId, uploader)) {
      return Admission.IN_PROGRESS;
    }
    p.uploadStarted(clock.instant());
    return Admission.ADMITTED;
  }

  /**
   * An admitted upload ended without a piece (it broke, or was refused part-way): the worker's
   * slot is free for a retry. Does nothing unless {@code uploader} holds the slot.
   */
  public synchronized void release(long snapshotId, String workerId, Object uploader) {
    PendingSnapshot p = pending.get(snapshotId);
    if (p != null) {
      p.release(workerId, uploader);
    }
  }

  /**
   * Accepts a worker's piece from the upload that holds its slot; when it is the last one,
   * verifies and commits the snapshot. The piece's counters are what the upload stored, so the
   * cut verified is the cut committed.
   */
  public synchronized AckResult acknowledge(Piece piece, Object uploader) {
    PendingSnapshot p = pending.get(piece.snapshotId());
    if (p == null) {
      return recent.contains(piece.snapshotId()) ? AckResult.DISCARDED : AckResult.UNKNOWN;
    }
    if (!p.covers(piece.workerId())) {
      return AckResult.UNKNOWN;
    }
    if (p.hasPiece(piece.workerId())) {
      return AckResult.DUPLICATE;
    }
    if (!p.holds(piece.workerId(), uploader)) {
      return AckResult.NOT_ADMITTED;
    }
    p.add(piece);
    if (p.allPiecesIn()) {
      finishUploaded(p);
    }
    return AckResult.SUCCESS;
  }

  /** A worker gave up its local snapshot: the snapshot is aborted. */
  public synchronized void localFailure(long snapshotId, String workerId, String reason) {
    PendingSnapshot p = pending.get(snapshotId);
    if (p != null && p.covers(workerId)) {
      end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, FailureReason.LOCAL_FAILURE,
          "worker " + workerId + " gave up its local snapshot: " + reason, List.of());
    }
  }

  /** A worker lost its session: every pending snapshot covering it is aborted. */
  public synchronized void workerLost(String workerId) {
    for (PendingSnapshot p : new ArrayList<>(pending.values())) {
      if (p.covers(workerId)) {
        end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, FailureReason.WORKER_LOST,
            "worker " + workerId + " was lost", List.of());
      }
    }
  }

  /** A worker rejoined with different channels: every pending snapshot is aborted. */
  public synchronized void topologyChanged(String workerId) {
    abortAll(FailureReason.TOPOLOGY_CHANGED, "the channels of worker " + workerId + " changed");
  }

  /** Aborts one pending snapshot; false when it is not pending. */
  public synchronized boolean abort(long snapshotId, FailureReason reason, String message) {
    PendingSnapshot p = pending.get(snapshotId);
    if (p == null) {
      return false;
    }
    end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, reason, message, List.of());
    return true;
  }

  /** Aborts every pending snapshot. */
  public synchronized void abortAll(FailureReason reason, String message) {
    for (PendingSnapshot p : new ArrayList<>(pending.values())) {
      end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, reason, message, List.of());
    }
  }

  /**
   * Refuses new snapshots until {@link #resume()} (a rollback pauses them), with {@code reason};
   * pending ones are not touched here.
   */
  public synchronized void pause(SnapshotBlock.Reason reason, String message) {
    paused = SnapshotBlock.of(reason, "snapshots are paused: " + message);
  }

  public synchronized void resume() {
    paused = null;
  }

  public synchronized List<Long> pendingIds() {
    return List.copyOf(pending.keySet());
  }

  /** The manifest of a pending snapshot, if it is pending. */
  public synchronized Optional<SnapshotManifest> pendingManifest(long snapshotId) {
    return Optional.ofNullable(pending.get(snapshotId)).map(PendingSnapshot::manifest);
  }

  /** The final outcome of a pending snapshot, if it is pending. */
  public synchronized Optional<java.util.concurrent.CompletableFuture<SnapshotManifest>> outcome(long snapshotId) {
    return Optional.ofNullable(pending.get(snapshotId)).map(PendingSnapshot::outcome);
  }

  public synchronized int consecutiveFailures() {
    return policy.consecutiveFailures();
  }

  private void onTimeout(long snapshotId) {
    synchronized (this) {
      PendingSnapshot p = pending.get(snapshotId);
      if (p == null) {
        return; // ended meanwhile
      }
      SortedSet<String> missing = new java.util.TreeSet<>(p.workers());
      missing.removeAll(p.pieces().keySet());
      end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, FailureReason.TIMEOUT,
          "timed out after " + Durations.format(settings.timeout()) + "; no piece from " + missing, List.of());
    }
  }

  private void finishUploaded(PendingSnapshot p) {
    Instant uploaded = clock.instant();
    List<Violation> violations = CutVerifier.verify(p.cut());
    if (!violations.isEmpty()) {
      end(p, SnapshotStatus.SNAPSHOT_STATUS_FAILED, FailureReason.CUT_INVALID,
          "the cut is inconsistent: " + violations.size() + " violation(s), first: " + violations.get(0),
          violations);
      return;
    }
    SnapshotManifest base = p.manifest();
    long stateBytes = 0;
    long channelBytes = 0;
    long inFlight = 0;
    for (Piece piece : p.pieces().values()) {
      stateBytes += piece.meta().getStateBytes();
      channelBytes += piece.channelBytes();
      inFlight += piece.inFlightMessages();
    }
    Instant end = clock.instant();
    SnapshotManifest complete = base.toBuilder()
        .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
        .setFinishedAtUnixMs(end.toEpochMilli())
        .setTotalStateBytes(stateBytes)
        .setTotalChannelBytes(channelBytes)
        .setInFlightMessages(inFlight)
        .setTimings(timings(p, uploaded, end))
        .build();
    try {
      store.commit(complete);
    } catch (StoreException e) {
      log.error("commit of snapshot {} failed", p.id(), e);
      end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, FailureReason.STORE_ERROR,
          "commit failed: " + e.getMessage(), List.of());
      return;
    }
    Instant committed = clock.instant();
    complete = complete.toBuilder()
        .setFinishedAtUnixMs(committed.toEpochMilli())
        .setTimings(timings(p, uploaded, committed))
        .build();
    pending.remove(p.id());
    recent.remember(p.id());
    p.cancelTimeout();
    lastEnded = committed;
    policy.onSuccess();
    CompletedSnapshot done = new CompletedSnapshot(complete, p.channels().size());
    log.info("snapshot {} COMPLETE in {} ms: {} workers, {} channels, {} state bytes, {} in-flight messages",
        p.id(), done.duration().toMillis(), p.workers().size(), p.channels().size(), stateBytes, inFlight);
    listener.completed(done);
    p.outcome().complete(complete);
  }

  private static PhaseTimings timings(PendingSnapshot p, Instant uploaded, Instant end) {
    return PhaseTimings.newBuilder()
        .setMarkerPropagationMicros(micros(p.markerPropagation()))
        .setUploadMicros(micros(p.upload(uploaded)))
        .setCommitMicros(micros(Duration.between(uploaded, end)))
        .setTotalMicros(micros(Duration.between(p.startedAt(), end)))
        .build();
  }

  private static long micros(Duration d) {
    return Math.max(0, d.toNanos() / 1000);
  }

  private void end(PendingSnapshot p, SnapshotStatus status, FailureReason reason, String message,
      List<Violation> violations) {
    pending.remove(p.id());
    recent.remember(p.id());
    p.cancelTimeout();
    Instant now = clock.instant();
    lastEnded = now;
    SnapshotManifest.Builder b = p.manifest().toBuilder()
        .setStatus(status)
        .setReason(message)
        .setFinishedAtUnixMs(now.toEpochMilli())
        .setTimings(PhaseTimings.newBuilder()
            .setMarkerPropagationMicros(micros(p.markerPropagation()))
            .setTotalMicros(micros(Duration.between(p.startedAt(), now))));
    for (Violation v : violations) {
      io.cutpoint.api.v1.Violation.Builder vb = io.cutpoint.api.v1.Violation.newBuilder().setMessage(v.message());
      if (v.channel() != null) {
        vb.setChannel(io.cutpoint.api.v1.ChannelRef.newBuilder().setFrom(v.channel().from()).setTo(v.channel().to()));
      }
      if (v.workerId() != null) {
        vb.setWorkerId(v.workerId());
      }
      b.addViolations(vb);
    }
    SnapshotManifest manifest = b.build();
    if (status == SnapshotStatus.SNAPSHOT_STATUS_ABORTED) {
      for (String w : p.workers()) {
        commands.abortSnapshot(w, p.id(), message);
      }
    }
    try {
      store.finish(manifest);
    } catch (StoreException e) {
      log.error("could not record the end of snapshot {}", p.id(), e);
    }
    boolean exceeded = policy.onFailure(reason);
    log.info("snapshot {} {} after {} ms ({}): {}", p.id(), status == SnapshotStatus.SNAPSHOT_STATUS_FAILED
        ? "FAILED" : "ABORTED", Duration.between(p.startedAt(), now).toMillis(), reason, message);
    if (exceeded) {
      log.error("{} consecutive snapshots failed, more than the tolerable {}; latest: {}",
          policy.consecutiveFailures(), settings.tolerableFailures(), message);
    }
    listener.ended(manifest, reason, Duration.between(p.startedAt(), now), exceeded);
    p.outcome().complete(manifest);
  }
}
