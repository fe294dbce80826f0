package io.cutpoint.server.sim;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.Welcome;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.RollbackService;
import io.cutpoint.server.events.EventHub;
import io.cutpoint.server.grpc.LiveSession;
import io.cutpoint.server.grpc.SessionRegistry;
import io.cutpoint.server.lifecycle.AckResult;
import io.cutpoint.server.lifecycle.BrokenLifecycle;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.PendingManifest;
import io.cutpoint.server.lifecycle.Piece;
import io.cutpoint.server.lifecycle.SnapshotLifecycle;
import io.cutpoint.server.lifecycle.SnapshotListener;
import io.cutpoint.server.lifecycle.TriggerResult;
import io.cutpoint.server.membership.Declaration;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.metrics.CoordinatorMetrics;
import io.cutpoint.server.rollback.RollbackCoordinator;
import io.cutpoint.storage.SnapshotStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * One incarnation of the coordinator in the seeded simulator: the production cores ({@link
 * Membership}, {@link SnapshotLifecycle}, {@link RollbackCoordinator} with the automatic policy)
 * wired as {@code CoordinatorServer} wires them, on the simulator's loop ({@link SimLoop}) and
 * store executor ({@link SimStore}), with the coordinator's {@link SessionRegistry} writing to
 * simulated session streams. The methods here are the thin transport around the cores, doing what
 * {@code SessionStream}, {@code CoordinatorContext} and {@code UploadReceiver} do with a join, a
 * report, an upload and a lost session; they decide nothing.
 *
 * <p>Built over the store as a restarted coordinator is: the pending snapshots of an earlier one
 * end ABORTED, and the rollback resumes one that the store says was in progress.
 */
final class CoordinatorNode {

  /** What the simulation hears from the coordinator, besides the session streams. */
  interface Observer {
    /** A snapshot ended ABORTED or FAILED, and why. */
    void ended(SnapshotManifest manifest, FailureReason reason);

    /** Something no correct coordinator or worker does. */
    void problem(String description);
  }

  /** Not a subject of the simulation: one registry for every coordinator the simulator builds. */
  private static final CoordinatorMetrics METRICS =
      new CoordinatorMetrics(new SimpleMeterRegistry(), java.time.Clock.systemUTC(), s -> 0);

  /**
   * The automatic policy; deadlines far beyond any schedule (a stuck rollback shows at the end).
   */
  private static final CoordinatorConfig CONFIG =
      CoordinatorConfig.builder()
          .maxConcurrentSnapshots(4)
          .snapshotTimeout(Duration.ofHours(1))
          .rollbackPolicy(io.cutpoint.server.rollback.RollbackPolicy.LATEST_COMPLETE)
          .rollbackDeadline(Duration.ofHours(1))
          .build();

  private final SimLoop loop;
  private final SnapshotStore store;
  private final int generation;
  private final LongSupplier storeDelay;
  private final Observer observer;
  private final Membership membership = new Membership();
  private final SessionRegistry sessions = new SessionRegistry();
  private final SnapshotLifecycle lifecycle;
  private final RollbackService rollback;
  private final SimStore storeIo;

  CoordinatorNode(
      SimLoop loop,
      SnapshotStore store,
      LongSupplier storeDelay,
      boolean commitBeforeLastPiece,
      Observer observer) {
    this.loop = loop;
    this.store = store;
    this.generation = loop.generation();
    this.storeDelay = storeDelay;
    this.observer = observer;
    this.storeIo = new SimStore(store, loop, storeDelay);
    this.lifecycle =
        new SnapshotLifecycle(
            new SnapshotLifecycle.Settings(
                CONFIG.snapshotTimeout(),
                CONFIG.minPauseBetweenSnapshots(),
                CONFIG.maxConcurrentSnapshots(),
                CONFIG.tolerableConsecutiveFailures()),
            loop.clock(),
            loop,
            storeIo,
            membership::view,
            sessions,
            new SnapshotListener() {
              @Override
              public void ended(
                  SnapshotManifest m, FailureReason reason, Duration d, boolean exceeded) {
                observer.ended(m, reason);
              }
            });
    if (commitBeforeLastPiece) {
      BrokenLifecycle.commitBeforeLastPiece(lifecycle);
    }
    CoordinatorServer.cleanUpPending(store);
    this.rollback =
        RollbackCoordinator.factory()
            .create(
                new RollbackService.Parts(
                    CONFIG,
                    loop.clock(),
                    loop,
                    storeIo,
                    store,
                    membership,
                    sessions,
                    lifecycle,
                    new EventHub(loop.clock(), store::epoch),
                    METRICS));
    loop.execute(rollback::start);
  }

  /** True while this incarnation runs (until a restart replaces it). */
  boolean running() {
    return generation == loop.generation();
  }

  /** Runs {@code event}, which arrived at this coordinator from a worker or the schedule. */
  void arrive(Runnable event) {
    loop.run(event);
  }

  SnapshotLifecycle lifecycle() {
    return lifecycle;
  }

  RollbackService rollback() {
    return rollback;
  }

  Membership membership() {
    return membership;
  }

  // ---- what operators and the schedule ask -------------------------------------------------

  /** A periodic trigger. */
  CompletableFuture<TriggerResult> trigger() {
    return lifecycle.trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_PERIODIC, null);
  }

  /** An operator's rollback to {@code snapshotId}. */
  CompletableFuture<?> rollbackTo(long snapshotId) {
    return rollback.rollback(
        RollbackRequest.newBuilder()
            .setSnapshotId(snapshotId)
            .setReason("simulated operator")
            .build());
  }

  // ---- the session streams (SessionStream, CoordinatorContext) ------------------------------

  /** A join arrived on {@code s}. */
  void join(SimSession s, Declaration decl, boolean fresh) {
    Membership.JoinOutcome outcome = membership.join(decl, loop.clock().millis());
    if (outcome instanceof Membership.Refused) {
      s.onError(new IllegalStateException("join refused: " + outcome));
      return;
    }
    Membership.Accepted accepted = (Membership.Accepted) outcome;
    s.token(accepted.token());
    LiveSession session = sessions.register(decl.workerId(), accepted.token(), s);
    var unused =
        lifecycle
            .nextSnapshotId()
            .thenAccept(
                next ->
                    session.welcome(
                        CoordinatorMessage.newBuilder()
                            .setWelcome(
                                Welcome.newBuilder()
                                    .setEpoch(rollback.epoch())
                                    .setHalted(rollback.holdsWorkers())
                                    .setSessionSecret(session.secret())
                                    .addAllPendingSnapshotIds(lifecycle.pendingIds())
                                    .setNextSnapshotId(next))
                            .build()));
    if (accepted.channelsChanged()) {
      lifecycle.topologyChanged(decl.workerId());
    }
    rollback.onWorkerJoined(decl.workerId());
    if (fresh) {
      rollback.onFreshWorkerJoined(decl.workerId());
    }
  }

  void halted(SimSession s, long epoch) {
    rollback.onHalted(s.workerId(), epoch);
  }

  void restored(SimSession s, long epoch, long snapshotId) {
    rollback.onRestored(s.workerId(), epoch, snapshotId, false);
  }

  void snapshotFailed(SimSession s, long snapshotId, String reason) {
    lifecycle.localFailure(snapshotId, s.workerId(), reason);
  }

  /** The session of {@code s} broke (its process died): the worker is lost. */
  void lost(SimSession s) {
    boolean wasLive = membership.lost(s.workerId(), s.token());
    sessions.remove(s.workerId(), s.token());
    if (wasLive) {
      lifecycle.workerLost(s.workerId());
      rollback.onWorkerLost(s.workerId());
    }
  }

  // ---- uploads (UploadReceiver) ------------------------------------------------------------

  /**
   * {@code s}'s worker uploads its piece, completed in {@code epoch}, as {@code UploadReceiver}
   * does: checked against the lifecycle's view, its parts handed to the store executor (behind the
   * pending manifest, ahead of any commit decided later), and the piece acknowledged on the loop
   * when the trailer arrives, after the store's delay.
   */
  void upload(SimSession s, CompletedLocalSnapshot completed, long epoch) {
    String worker = s.workerId();
    long id = completed.cut().snapshotId();
    if (membership.token(worker) != s.token()) {
      return; // an upload needs the worker's live session
    }
    SnapshotLifecycle.View view = lifecycle.view();
    PendingManifest m = view.pending().get(id);
    if (m == null) {
      return; // the snapshot ended (or was never known here): the worker drops the piece
    }
    if (m.epoch() != epoch) {
      return; // FAILED_PRECONDITION: recorded in another epoch than the snapshot's
    }
    if (!m.covers(worker) || m.delivered(worker)) {
      observer.problem("upload of " + worker + "'s piece of S=" + id + " refused by the view");
      return;
    }
    Piece piece = StoredPieces.piece(completed, epoch);
    storeIo.writePiece(
        st -> {
          try {
            StoredPieces.store(st, completed, epoch);
          } catch (io.cutpoint.storage.StoreException e) {
            // the snapshot ended meanwhile: its commit is refused without the piece
          }
        });
    loop.schedule(
        () -> {
          AckResult result = lifecycle.acknowledge(piece);
          if (result != AckResult.SUCCESS
              && result != AckResult.DISCARDED
              && result != AckResult.UNKNOWN) {
            observer.problem(worker + "'s piece of S=" + id + " was not taken: " + result);
          }
        },
        Duration.ofMillis(storeDelay.getAsLong()));
  }

  /** Workers by state, for the trace. */
  String states() {
    StringBuilder b = new StringBuilder();
    membership
        .view()
        .members()
        .forEach(
            (w, m) ->
                b.append(w)
                    .append('=')
                    .append(m.state() == WorkerState.WORKER_STATE_LOST ? "lost" : m.state())
                    .append(' '));
    return b.toString().trim();
  }
}
