package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.PhaseTimings;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.Violation;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.CutViolation;
import io.cutpoint.cut.RecentIds;
import io.cutpoint.server.membership.InitiatorSelection;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.storage.StoreException;
import io.cutpoint.util.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot lifecycle: PENDING -> COMPLETE | ABORTED | FAILED. Starts snapshots (checking the
 * topology, the maximum concurrent snapshots and the minimum pause), collects the workers' pieces,
 * verifies the cut with {@link CutVerifier} and commits it, and aborts on timeout, lost workers and
 * topology changes. Time comes from the injected {@link Clock}, timers from the injected {@link
 * Scheduler}; it talks to workers only through {@link WorkerCommands} and to the store only through
 * {@link StoreEffects}, whose results come back as events ({@code idsReserved}, {@code
 * pendingWritten}, {@code committed}, {@code finished}).
 *
 * <p>Confined to the coordinator loop (the scheduler's thread): no lock; every event method checks
 * that it runs there. After each event it publishes an immutable {@link View} that readers on any
 * thread use, and only then sends the commands and completes the replies and outcomes the event
 * decided (so neither a worker nor a caller ever sees a half-applied event).
 */
public final class SnapshotLifecycle {

  private static final Logger log = LoggerFactory.getLogger(SnapshotLifecycle.class);
  private static final int RECENT_IDS = 1024;
  private static final String OWNER = "SnapshotLifecycle";

  /** Ids reserved in one store round trip. */
  static final int ID_BLOCK = 16;

  /** More ids are reserved when fewer than this many are left. */
  static final int ID_LOW_WATER = 4;

  /** The settings the lifecycle needs (from {@code CoordinatorConfig}). */
  public record Settings(
      Duration timeout, Duration minPause, int maxConcurrent, int tolerableFailures) {}

  /**
   * What readers see: the pending snapshots (by id, with what an upload checks and their
   * manifests), the ended ones whose end the store has not written yet, the failure count, the
   * pause and the newest id started (0 before the first), as of the last event.
   */
  public record View(
      SortedMap<Long, PendingManifest> pending,
      SortedMap<Long, SnapshotManifest> ending,
      int consecutiveFailures,
      SnapshotBlock paused,
      long newestStarted) {
    static final View EMPTY =
        new View(Collections.emptySortedMap(), Collections.emptySortedMap(), 0, null, 0);

    public List<Long> pendingIds() {
      return List.copyOf(pending.keySet());
    }

    /**
     * Whether {@code snapshotId} was started and is no longer pending (its end may still be on its
     * way to the store): ids are started in increasing order, those of an earlier coordinator ended
     * when this one started.
     */
    public boolean ended(long snapshotId) {
      return snapshotId > 0 && snapshotId <= newestStarted && !pending.containsKey(snapshotId);
    }
  }

  private final Settings settings;
  private final Clock clock;
  private final Scheduler loop;
  private final StoreEffects store;
  private final Supplier<Membership.View> cluster;
  private final WorkerCommands commands;
  private final SnapshotListener listener;
  private final FailurePolicy policy;
  private final SortedMap<Long, PendingSnapshot> pending = new TreeMap<>();
  private final RecentIds recent = new RecentIds(RECENT_IDS);

  /** Replies and outcomes decided by the current event, completed once it is applied. */
  private final List<Runnable> afterEvent = new ArrayList<>();

  /** Ended snapshots whose end the store has not written yet, for readers. */
  private final SortedMap<Long, SnapshotManifest> unwritten = new TreeMap<>();

  /** Snapshot ids reserved ahead by the store, lowest first. */
  private final java.util.ArrayDeque<Long> ids = new java.util.ArrayDeque<>();

  /** Triggers that passed their checks and wait for the store to reserve ids. */
  private final java.util.ArrayDeque<Start> waitingForIds = new java.util.ArrayDeque<>();

  /** A reservation of ids is under way. */
  private boolean reserving;

  /** Above the id of every snapshot started so far (0: none started). */
  private long aboveStarted;

  /** Welcomes waiting to learn the lowest id a start may take (see {@link #nextSnapshotId}). */
  private final List<CompletableFuture<Long>> waitingForNextId = new ArrayList<>();

  /** Counts the aborts of every pending snapshot; a start that spans one is aborted too. */
  private long aborts;

  private FailureReason lastAbortReason = FailureReason.COORDINATOR;
  private String lastAbortMessage = "";
  private Instant lastEnded;
  private SnapshotBlock paused;

  /** The newest id started here: any id at or below it that is not pending has ended. */
  private long newestStarted;

  private volatile View view = View.EMPTY;

  /** Deliberately wrong behaviours, for the simulator's tests only; never set in production. */
  enum Broken {
    NONE,
    /** Verifies and commits a snapshot once every piece but one arrived. */
    COMMIT_BEFORE_LAST_PIECE
  }

  private Broken broken = Broken.NONE;

  /**
   * @param loop the coordinator loop: timers run there, and it is the only thread that may call the
   *     event methods
   */
  public SnapshotLifecycle(
      Settings settings,
      Clock clock,
      Scheduler loop,
      StoreEffects store,
      Supplier<Membership.View> cluster,
      WorkerCommands commands,
      SnapshotListener listener) {
    this.settings = settings;
    this.clock = clock;
    this.loop = loop;
    this.store = store;
    this.cluster = cluster;
    this.commands = commands;
    this.listener = listener;
    this.policy = new FailurePolicy(settings.tolerableFailures());
  }

  /** Test-only: makes this lifecycle wrong on purpose, to show the simulator catches it. */
  void breakForTest(Broken b) {
    this.broken = b;
  }

  /**
   * Starts a snapshot. With a {@code requester} (a worker asking for a snapshot) that worker is an
   * initiator and is not sent a start command (it initiates when it gets the id); the other needed
   * initiators are. A refusal completes at once. A start takes an id reserved ahead and sends the
   * start commands at once; its pending manifest is written behind them (a piece is stored only
   * once it is: see {@link #written}), and the reply completes then, so that a caller told of the
   * snapshot finds it in the store. A snapshot whose manifest the store cannot write ends ABORTED.
   * Only when no id is left does the start wait for the store to reserve more.
   */
  public CompletableFuture<TriggerResult> trigger(SnapshotTrigger trigger, String requester) {
    loop.checkInLoop(OWNER);
    Membership.View v = cluster.get();
    Optional<SnapshotBlock> blocked = blocked(v);
    if (blocked.isPresent()) {
      return refused(new TriggerResult.Refused(blocked.get()));
    }
    if (requester != null && !v.members().containsKey(requester)) {
      return refused(
          new TriggerResult.Refused(TriggerResult.Reason.NOT_READY, "unknown worker " + requester));
    }
    if (pending.size() + waitingForIds.size() >= settings.maxConcurrent()) {
      return refused(
          new TriggerResult.Refused(
              TriggerResult.Reason.TOO_MANY_PENDING,
              (pending.size() + waitingForIds.size())
                  + " snapshot(s) pending, at most "
                  + settings.maxConcurrent()
                  + " at once: "
                  + pending.keySet()));
    }
    Instant now = clock.instant();
    if (lastEnded != null && now.isBefore(lastEnded.plus(settings.minPause()))) {
      return refused(
          new TriggerResult.Refused(
              TriggerResult.Reason.TOO_SOON,
              "the minimum pause of "
                  + settings.minPause()
                  + " since the last snapshot has not passed"));
    }
    SortedSet<String> initiators =
        InitiatorSelection.selectWith(v.topology().workerIds(), v.topology().channels(), requester);
    Start s = new Start(trigger, now, initiators, v, requester, aborts, new CompletableFuture<>());
    if (ids.isEmpty()) {
      waitingForIds.add(s);
      reserveAhead();
      return s.reply();
    }
    start(s, ids.poll());
    reserveAhead();
    applied();
    return s.reply();
  }

  private static CompletableFuture<TriggerResult> refused(TriggerResult.Refused r) {
    return CompletableFuture.completedFuture(r);
  }

  /** A trigger that passed its checks, waiting for an id. */
  private record Start(
      SnapshotTrigger trigger,
      Instant startedAt,
      SortedSet<String> initiators,
      Membership.View cluster,
      String requester,
      long abortsBefore,
      CompletableFuture<TriggerResult> reply) {}

  /**
   * Starts {@code s} as snapshot {@code id}: pending from now on, its start commands and reply
   * decided, its pending manifest handed to the store (ahead of any later write of it).
   */
  private void start(Start s, long id) {
    aboveStarted = Math.max(aboveStarted, id + 1);
    PendingSnapshot p =
        new PendingSnapshot(
            id, store.epoch(), s.trigger(), s.startedAt(), s.initiators(), s.cluster().topology());
    pending.put(id, p);
    newestStarted = Math.max(newestStarted, id);
    p.timeout(loop.schedule(() -> onTimeout(id), settings.timeout()));
    listener.started(p.manifest());
    store.createPending(p.manifest(), failure -> pendingWritten(p, failure));
    if (aborts != s.abortsBefore()) {
      // every pending snapshot was aborted while this one waited for its id: so is this one
      end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, lastAbortReason, lastAbortMessage, List.of());
    } else {
      for (String initiator : s.initiators()) {
        if (!initiator.equals(s.requester())) {
          afterEvent.add(() -> commands.startSnapshot(initiator, p.id(), p.epoch()));
        }
      }
    }
    TriggerResult.Started started = new TriggerResult.Started(p.manifest(), p.outcome());
    // the caller may read the snapshot from the store once told; the workers need not wait
    var unused = p.written().thenRun(() -> s.reply().complete(started));
  }

  /** Asks the store for more ids unless enough are left or a reservation is under way. */
  private void reserveAhead() {
    if (reserving || ids.size() - waitingForIds.size() >= ID_LOW_WATER) {
      return;
    }
    reserving = true;
    store.reserveIds(ID_BLOCK, this::idsReserved);
  }

  /** Event: the store reserved ids, or could not (the triggers waiting for one are refused). */
  private void idsReserved(long[] reserved, StoreException failure) {
    loop.checkInLoop(OWNER);
    reserving = false;
    if (failure != null) {
      for (CompletableFuture<Long> w : waitingForNextId) {
        afterEvent.add(() -> w.complete(0L)); // not known: a welcome then ends no recording
      }
      waitingForNextId.clear();
      TriggerResult.Refused r =
          new TriggerResult.Refused(
              SnapshotBlock.of(
                  SnapshotBlock.Reason.STORE_UNAVAILABLE, "store failed: " + failure.getMessage()));
      for (Start s : waitingForIds) {
        afterEvent.add(() -> s.reply().complete(r));
      }
      waitingForIds.clear();
      applied();
      return;
    }
    for (long id : reserved) {
      ids.add(id);
    }
    if (!waitingForNextId.isEmpty() && !ids.isEmpty()) {
      long next = ids.peekFirst();
      for (CompletableFuture<Long> w : waitingForNextId) {
        afterEvent.add(() -> w.complete(next));
      }
      waitingForNextId.clear();
    }
    while (!waitingForIds.isEmpty() && !ids.isEmpty()) {
      start(waitingForIds.poll(), ids.poll());
    }
    if (reserved.length > 0) {
      reserveAhead();
    }
    applied();
  }

  /**
   * Event: the store wrote the pending manifest of a started snapshot, or could not (it ends
   * ABORTED, and its workers are told).
   */
  private void pendingWritten(PendingSnapshot p, StoreException failure) {
    loop.checkInLoop(OWNER);
    if (failure != null && pending.get(p.id()) == p) {
      end(
          p,
          SnapshotStatus.SNAPSHOT_STATUS_ABORTED,
          FailureReason.STORE_ERROR,
          "the pending manifest could not be written: " + failure.getMessage(),
          List.of());
    }
    afterEvent.add(() -> p.written().complete(null));
    applied();
  }

  /** The state of the cluster that keeps any snapshot from starting, if there is one. */
  private Optional<SnapshotBlock> blocked(Membership.View view) {
    if (paused != null) {
      return Optional.of(paused);
    }
    if (view.members().isEmpty()) {
      return Optional.of(
          SnapshotBlock.of(SnapshotBlock.Reason.NO_WORKERS, "no workers have joined"));
    }
    if (!view.allLive()) {
      return Optional.of(
          new SnapshotBlock(
              SnapshotBlock.Reason.WORKERS_LOST,
              view.lost(),
              "workers without a live session: " + view.lost()));
    }
    List<Membership.Member> notRunning =
        view.members().values().stream()
            .filter(m -> m.state() != WorkerState.WORKER_STATE_RUNNING)
            .toList();
    if (!notRunning.isEmpty()) {
      return Optional.of(
          new SnapshotBlock(
              SnapshotBlock.Reason.WORKERS_NOT_RUNNING,
              notRunning.stream().map(m -> m.decl().workerId()).toList(),
              "workers not running: "
                  + notRunning.stream()
                      .map(m -> m.decl().workerId() + " (" + m.state() + ")")
                      .toList()));
    }
    if (!view.topology().closed()) {
      return Optional.of(
          SnapshotBlock.of(
              SnapshotBlock.Reason.TOPOLOGY_OPEN,
              "the topology is not "
                  + "closed; channels declared by one end only: "
                  + view.topology().pendingChannels()));
    }
    return Optional.empty();
  }

  /**
   * Accepts a worker's piece, the first one to arrive for it: this one event decides the piece's
   * admission. When it is the last piece, verifies the cut and hands the commit to the store (the
   * snapshot completes on the {@code committed} event). The upload handed its parts to the store
   * before it told the loop, and the store performs writes in order, so the commit comes after
   * them; the store refuses a commit whose stored counters are not the piece's, or whose parts are
   * missing (a part write failed), and the snapshot then ends ABORTED ({@code STORE_ERROR}).
   */
  public AckResult acknowledge(Piece piece) {
    loop.checkInLoop(OWNER);
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
    p.add(piece, clock.instant());
    if (p.allPiecesIn()
        || (broken == Broken.COMMIT_BEFORE_LAST_PIECE
            && p.pieces().size() + 1 >= p.workers().size())) {
      finishUploaded(p);
    }
    applied();
    return AckResult.SUCCESS;
  }

  /**
   * Completes when {@code snapshotId} is no longer being committed: at once unless its verified cut
   * is with the store, else once the commit's result is applied. An upload of the last piece
   * answers then, so that its worker sees the snapshot ended.
   */
  public CompletableFuture<?> settled(long snapshotId) {
    loop.checkInLoop(OWNER);
    PendingSnapshot p = pending.get(snapshotId);
    return p != null && p.committing() ? p.outcome() : CompletableFuture.completedFuture(null);
  }

  /** A worker gave up its local snapshot: the snapshot is aborted. */
  public void localFailure(long snapshotId, String workerId, String reason) {
    loop.checkInLoop(OWNER);
    PendingSnapshot p = pending.get(snapshotId);
    if (p != null && p.covers(workerId) && !p.committing()) {
      end(
          p,
          SnapshotStatus.SNAPSHOT_STATUS_ABORTED,
          FailureReason.LOCAL_FAILURE,
          "worker " + workerId + " gave up its local snapshot: " + reason,
          List.of());
    }
    applied();
  }

  /**
   * A worker lost its session: every pending snapshot covering it is aborted (a verified one being
   * committed is not: its cut is whole), and so is one being started.
   */
  public void workerLost(String workerId) {
    loop.checkInLoop(OWNER);
    String message = "worker " + workerId + " was lost";
    noteAbort(FailureReason.WORKER_LOST, message);
    for (PendingSnapshot p : new ArrayList<>(pending.values())) {
      if (p.covers(workerId) && !p.committing()) {
        end(
            p,
            SnapshotStatus.SNAPSHOT_STATUS_ABORTED,
            FailureReason.WORKER_LOST,
            message,
            List.of());
      }
    }
    applied();
  }

  /** A worker rejoined with different channels: every pending snapshot is aborted. */
  public void topologyChanged(String workerId) {
    abortAll(FailureReason.TOPOLOGY_CHANGED, "the channels of worker " + workerId + " changed");
  }

  /**
   * Aborts one pending snapshot; empty when it is not pending (or is being committed), else its
   * outcome (complete once the event is applied).
   */
  public Optional<CompletableFuture<SnapshotManifest>> abort(
      long snapshotId, FailureReason reason, String message) {
    loop.checkInLoop(OWNER);
    PendingSnapshot p = pending.get(snapshotId);
    if (p == null || p.committing()) {
      return Optional.empty();
    }
    end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, reason, message, List.of());
    applied();
    return Optional.of(p.outcome());
  }

  /** Aborts every pending snapshot (and those being started), except those being committed. */
  public void abortAll(FailureReason reason, String message) {
    loop.checkInLoop(OWNER);
    noteAbort(reason, message);
    for (PendingSnapshot p : new ArrayList<>(pending.values())) {
      if (!p.committing()) {
        end(p, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, reason, message, List.of());
      }
    }
    applied();
  }

  private void noteAbort(FailureReason reason, String message) {
    aborts++;
    lastAbortReason = reason;
    lastAbortMessage = message;
  }

  /**
   * Refuses new snapshots until {@link #resume()} (a rollback pauses them), with {@code reason};
   * pending ones are not touched here.
   */
  public void pause(SnapshotBlock.Reason reason, String message) {
    loop.checkInLoop(OWNER);
    paused = SnapshotBlock.of(reason, "snapshots are paused: " + message);
    applied();
  }

  public void resume() {
    loop.checkInLoop(OWNER);
    paused = null;
    applied();
  }

  /**
   * The lowest id a snapshot started from now on can have (ids are reserved increasing, also across
   * restarts), for a welcome: completes on the loop, at once when an id is reserved or was used,
   * else once the store reserved some (which it is asked to); 0 when the store could not. Every
   * snapshot this lifecycle starts later has this id or a higher one, every snapshot an earlier
   * coordinator started has a lower one.
   */
  public CompletableFuture<Long> nextSnapshotId() {
    loop.checkInLoop(OWNER);
    if (!ids.isEmpty()) {
      return CompletableFuture.completedFuture(ids.peekFirst());
    }
    if (aboveStarted > 0) {
      return CompletableFuture.completedFuture(aboveStarted);
    }
    CompletableFuture<Long> next = new CompletableFuture<>();
    waitingForNextId.add(next);
    if (!reserving) {
      reserving = true;
      store.reserveIds(ID_BLOCK, this::idsReserved);
    }
    return next;
  }

  /** What readers see, as of the last event; any thread. */
  public View view() {
    return view;
  }

  /** The pending snapshots as of the last event; any thread. */
  public List<Long> pendingIds() {
    return view.pendingIds();
  }

  /**
   * The manifest of a snapshot as of the last event if it is pending, or ended and its end not yet
   * written to the store; any thread.
   */
  public Optional<SnapshotManifest> pendingManifest(long snapshotId) {
    View v = view;
    return Optional.ofNullable(v.pending().get(snapshotId))
        .map(PendingManifest::manifest)
        .or(() -> Optional.ofNullable(v.ending().get(snapshotId)));
  }

  /** Failed or aborted snapshots in a row, as of the last event; any thread. */
  public int consecutiveFailures() {
    return view.consecutiveFailures();
  }

  private void onTimeout(long snapshotId) {
    PendingSnapshot p = pending.get(snapshotId);
    if (p == null || p.committing()) {
      return; // ended meanwhile, or its verified cut is being committed
    }
    SortedSet<String> missing = new java.util.TreeSet<>(p.workers());
    missing.removeAll(p.pieces().keySet());
    end(
        p,
        SnapshotStatus.SNAPSHOT_STATUS_ABORTED,
        FailureReason.TIMEOUT,
        "timed out after " + Durations.format(settings.timeout()) + "; no piece from " + missing,
        List.of());
    applied();
  }

  private void finishUploaded(PendingSnapshot p) {
    Instant uploaded = clock.instant();
    List<CutViolation> violations =
        CutVerifier.verify(
            broken == Broken.COMMIT_BEFORE_LAST_PIECE
                ? io.cutpoint.cut.Cut.of(
                    p.id(),
                    p.pieces().keySet(),
                    p.channels(),
                    p.pieces().values().stream().map(Piece::cut).toList())
                : p.cut());
    if (!violations.isEmpty()) {
      end(
          p,
          SnapshotStatus.SNAPSHOT_STATUS_FAILED,
          FailureReason.CUT_INVALID,
          "the cut is inconsistent: "
              + violations.size()
              + " violation(s), first: "
              + violations.get(0),
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
    SnapshotManifest complete =
        base.toBuilder()
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
            .setFinishedAtUnixMs(end.toEpochMilli())
            .setTotalStateBytes(stateBytes)
            .setTotalChannelBytes(channelBytes)
            .setInFlightMessages(inFlight)
            .setTimings(timings(p, uploaded, end))
            .build();
    p.committing(true);
    store.commit(complete, failure -> committed(p, complete, uploaded, failure));
  }

  /** Event: the store committed the verified snapshot, or could not (it ends ABORTED). */
  private void committed(
      PendingSnapshot p, SnapshotManifest written, Instant uploaded, StoreException failure) {
    loop.checkInLoop(OWNER);
    if (pending.get(p.id()) != p) {
      return;
    }
    p.committing(false);
    if (failure != null) {
      end(
          p,
          SnapshotStatus.SNAPSHOT_STATUS_ABORTED,
          FailureReason.STORE_ERROR,
          "commit failed: " + failure.getMessage(),
          List.of());
      applied();
      return;
    }
    Instant committed = clock.instant();
    SnapshotManifest complete =
        written.toBuilder()
            .setFinishedAtUnixMs(committed.toEpochMilli())
            .setTimings(timings(p, uploaded, committed))
            .build();
    pending.remove(p.id());
    recent.remember(p.id());
    p.cancelTimeout();
    lastEnded = committed;
    policy.onSuccess();
    CompletedSnapshot done = new CompletedSnapshot(complete, p.channels().size());
    log.info(
        "snapshot {} COMPLETE in {} ms: {} workers, {} channels, {} state bytes, {} in-flight messages",
        p.id(),
        done.duration().toMillis(),
        p.workers().size(),
        p.channels().size(),
        complete.getTotalStateBytes(),
        complete.getInFlightMessages());
    // The waiters first (a trigger's caller is answered from here): the listeners' metrics, events
    // and maintenance kick-off are not on the caller's path.
    afterEvent.add(() -> p.outcome().complete(complete));
    afterEvent.add(() -> listener.completed(done));
    applied();
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

  private void end(
      PendingSnapshot p,
      SnapshotStatus status,
      FailureReason reason,
      String message,
      List<CutViolation> violations) {
    pending.remove(p.id());
    recent.remember(p.id());
    p.cancelTimeout();
    Instant now = clock.instant();
    lastEnded = now;
    SnapshotManifest.Builder b =
        p.manifest().toBuilder()
            .setStatus(status)
            .setReason(message)
            .setFinishedAtUnixMs(now.toEpochMilli())
            .setTimings(
                PhaseTimings.newBuilder()
                    .setMarkerPropagationMicros(micros(p.markerPropagation()))
                    .setTotalMicros(micros(Duration.between(p.startedAt(), now))));
    for (CutViolation v : violations) {
      Violation.Builder vb = Violation.newBuilder().setMessage(v.message());
      if (v.channel() != null) {
        vb.setChannel(ChannelRef.newBuilder().setFrom(v.channel().from()).setTo(v.channel().to()));
      }
      if (v.workerId() != null) {
        vb.setWorkerId(v.workerId());
      }
      b.addViolations(vb);
    }
    SnapshotManifest manifest = b.build();
    if (status == SnapshotStatus.SNAPSHOT_STATUS_ABORTED) {
      for (String w : p.workers()) {
        afterEvent.add(() -> commands.abortSnapshot(w, p.id(), message));
      }
    }
    unwritten.put(p.id(), manifest);
    boolean exceeded = policy.onFailure(reason);
    log.info(
        "snapshot {} {} after {} ms ({}): {}",
        p.id(),
        status == SnapshotStatus.SNAPSHOT_STATUS_FAILED ? "FAILED" : "ABORTED",
        Duration.between(p.startedAt(), now).toMillis(),
        reason,
        message);
    if (exceeded) {
      log.error(
          "{} consecutive snapshots failed, more than the tolerable {}; latest: {}",
          policy.consecutiveFailures(),
          settings.tolerableFailures(),
          message);
    }
    Duration took = Duration.between(p.startedAt(), now);
    store.finish(manifest, () -> finished(p, manifest, reason, took, exceeded));
  }

  /** Event: the store wrote the end of a snapshot; its listeners and waiters are told. */
  private void finished(
      PendingSnapshot p,
      SnapshotManifest manifest,
      FailureReason reason,
      Duration took,
      boolean exceeded) {
    loop.checkInLoop(OWNER);
    unwritten.remove(p.id());
    afterEvent.add(() -> p.outcome().complete(manifest));
    afterEvent.add(() -> listener.ended(manifest, reason, took, exceeded));
    applied();
  }

  /**
   * The event is applied: publishes the readers' view, then completes what it decided (replies,
   * outcomes, then listeners), in order.
   */
  private void applied() {
    SortedMap<Long, PendingManifest> published = new TreeMap<>();
    pending.forEach((id, p) -> published.put(id, p.published()));
    view =
        new View(
            Collections.unmodifiableSortedMap(published),
            Collections.unmodifiableSortedMap(new TreeMap<>(unwritten)),
            policy.consecutiveFailures(),
            paused,
            newestStarted);
    while (!afterEvent.isEmpty()) {
      List<Runnable> now = new ArrayList<>(afterEvent);
      afterEvent.clear();
      now.forEach(Runnable::run);
    }
  }
}
