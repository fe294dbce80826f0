package io.cutpoint.server.grpc;

import io.cutpoint.api.StatusText;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.PeerAddress;
import io.cutpoint.api.v1.SnapshotGranted;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.Welcome;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorContext;
import io.cutpoint.server.lifecycle.TriggerResult;
import io.cutpoint.server.membership.Declaration;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.membership.WorkerIds;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's session stream: a join, then heartbeats, requests and reports. The gRPC callbacks
 * (on a transport thread, one at a time) post each message to the coordinator loop, in order; all
 * the stream's state is the loop's, so there is no lock. Only what depends on the call's context
 * (the caller's certificate) is read on the transport thread.
 */
final class SessionStream implements StreamObserver<WorkerMessage> {
  private static final Logger log = LoggerFactory.getLogger(SessionStream.class);

  private final CoordinatorContext ctx;
  private final StreamObserver<CoordinatorMessage> out;
  private final SessionPieces pieces;
  private LiveSession session;
  private boolean done;

  /** The session once joined, for pieces taken on the transport thread; set on the loop. */
  private volatile LiveSession live;

  SessionStream(
      CoordinatorContext ctx, UploadClaims claims, StreamObserver<CoordinatorMessage> out) {
    this.ctx = ctx;
    this.out = out;
    this.pieces = new SessionPieces(ctx, claims);
  }

  /**
   * A transport thread: posts {@code message} to the loop. A piece of a joined session is taken
   * here instead, as an upload call's parts are: its checks and CRCs stay off the loop.
   */
  @Override
  public void onNext(WorkerMessage message) {
    LiveSession s = live;
    if (s != null && message.getBodyCase() == WorkerMessage.BodyCase.PIECE) {
      pieces.receive(s, message.getPiece());
      return;
    }
    Optional<String> notCertified =
        message.getBodyCase() == WorkerMessage.BodyCase.JOIN
            ? io.cutpoint.server.security.WorkerIdentity.notCertifiedAs(
                message.getJoin().getWorkerId())
            : Optional.empty();
    ctx.loop().execute(() -> handle(message, notCertified));
  }

  private void handle(WorkerMessage message, Optional<String> notCertified) {
    if (done) {
      return;
    }
    if (session == null) {
      if (message.getBodyCase() != WorkerMessage.BodyCase.JOIN) {
        refuse(
            Status.INVALID_ARGUMENT.withDescription(
                "the first message of a session must be join, got " + message.getBodyCase()));
        return;
      }
      join(message.getJoin(), notCertified);
      return;
    }
    String id = session.workerId();
    switch (message.getBodyCase()) {
      case HEARTBEAT ->
          ctx.membership()
              .heartbeat(
                  id, session.token(), ctx.clock().millis(), message.getHeartbeat().getLocalCopy());
      case SNAPSHOT_REQUEST -> requestSnapshot(message.getSnapshotRequest().getRequestId());
      case SNAPSHOT_FAILED ->
          ctx.lifecycle()
              .localFailure(
                  message.getSnapshotFailed().getSnapshotId(),
                  id,
                  WorkerIds.text(message.getSnapshotFailed().getReason()));
      case HALTED -> ctx.rollback().onHalted(id, message.getHalted().getEpoch());
      case RESTORED ->
          ctx.rollback()
              .onRestored(
                  id,
                  message.getRestored().getEpoch(),
                  message.getRestored().getSnapshotId(),
                  message.getRestored().getFromLocalCopy());
      case RESTORE_FAILED ->
          ctx.rollback()
              .onRestoreFailed(
                  id,
                  message.getRestoreFailed().getEpoch(),
                  message.getRestoreFailed().getSnapshotId(),
                  WorkerIds.text(message.getRestoreFailed().getReason()));
      case PIECE -> pieces.receive(session, message.getPiece()); // sent before the join was seen
      case JOIN ->
          end(Status.INVALID_ARGUMENT.withDescription("join may only be sent once per session"));
      case BODY_NOT_SET -> end(Status.INVALID_ARGUMENT.withDescription("empty worker message"));
    }
  }

  private void join(Join join, Optional<String> other) {
    Optional<String> problem = validate(join, ctx.config().limits());
    if (problem.isPresent()) {
      refuse(Status.INVALID_ARGUMENT.withDescription(problem.get()));
      return;
    }
    if (other.isPresent()) {
      refuse(Status.PERMISSION_DENIED.withDescription(other.get()));
      return;
    }
    if (join.getEpoch() > ctx.epoch()) {
      // Epochs only grow, and a worker enters one only after the store persisted it: this store
      // is not the one the worker followed. Welcomed, the worker could not move back, and every
      // snapshot and rollback would fail. UNAVAILABLE: the worker asks again, and is welcomed
      // once the coordinator runs on the right store.
      String why =
          "worker "
              + join.getWorkerId()
              + " is in epoch "
              + Long.toUnsignedString(join.getEpoch())
              + ", ahead of this coordinator's epoch "
              + ctx.epoch()
              + ": its store is not the one the worker followed (reset or replaced?); run the"
              + " coordinator on that store, or restart the worker to join with its initial state";
      log.warn("{}", why);
      refuse(Status.UNAVAILABLE.withDescription(why));
      return;
    }
    Declaration decl =
        Declaration.of(
            join.getWorkerId(),
            join.getChannelAddress(),
            join.getOutgoingList(),
            join.getIncomingList());
    CoordinatorContext.Joined joined = ctx.join(decl, out);
    if (joined.outcome() instanceof Membership.Refused r) {
      refuse(
          switch (r.refusal()) {
            case ALREADY_EXISTS -> Status.ALREADY_EXISTS.withDescription(r.message());
            case CONTRADICTS_TOPOLOGY ->
                Status.FAILED_PRECONDITION.withDescription(
                    "declared channels contradict the topology: " + r.message());
            case TOO_MANY_WORKERS -> Status.RESOURCE_EXHAUSTED.withDescription(r.message());
          });
      return;
    }
    Membership.Accepted accepted = (Membership.Accepted) joined.outcome();
    LiveSession live = joined.session();
    session = live;
    this.live = live;
    // The welcome waits (on the loop) until the lifecycle knows the lowest id it may start next,
    // only at the start of a coordinator; what is sent to the session meanwhile is held behind it.
    var unused =
        ctx.lifecycle()
            .nextSnapshotId()
            .thenAccept(
                next -> {
                  Welcome.Builder welcome =
                      Welcome.newBuilder()
                          .setEpoch(ctx.epoch())
                          .setHeartbeatIntervalMs((int) ctx.config().heartbeatInterval().toMillis())
                          .setHalted(ctx.rollback().holdsWorkers())
                          .setSessionSecret(live.secret())
                          .addAllPendingSnapshotIds(ctx.lifecycle().pendingIds())
                          .setNextSnapshotId(next)
                          .setMaxPieceBytes(SessionPieces.MAX_PIECE_BYTES)
                          .setTakesRestoreFailed(true);
                  accepted
                      .peerAddresses()
                      .forEach(
                          (peer, address) ->
                              welcome.addPeers(
                                  PeerAddress.newBuilder()
                                      .setWorkerId(peer)
                                      .setChannelAddress(address)));
                  live.welcome(CoordinatorMessage.newBuilder().setWelcome(welcome).build());
                  ctx.membership().welcomed(live.workerId(), live.token(), ctx.clock().millis());
                });
    ctx.joined(decl, accepted, join.getFresh());
  }

  /** Why {@code join} is not acceptable within {@code limits}, or empty when it is. */
  static Optional<String> validate(Join join, CoordinatorConfig.WorkerLimits limits) {
    Optional<String> p = WorkerIds.problem(join.getWorkerId(), limits.maxIdLength());
    if (p.isPresent()) {
      return p;
    }
    p = WorkerIds.addressProblem(join.getChannelAddress());
    if (p.isPresent()) {
      return p;
    }
    for (var list : java.util.List.of(join.getOutgoingList(), join.getIncomingList())) {
      if (list.size() > limits.maxChannelsPerWorker()) {
        return Optional.of(
            "worker declares "
                + list.size()
                + " "
                + (list == join.getOutgoingList() ? "outgoing" : "incoming")
                + " channels; at most "
                + limits.maxChannelsPerWorker()
                + " are allowed (max-channels-per-worker)");
      }
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (String peer : list) {
        Optional<String> q = WorkerIds.problem(peer, limits.maxIdLength());
        if (q.isPresent()) {
          return Optional.of("declared peer: " + q.get());
        }
        if (peer.equals(join.getWorkerId())) {
          return Optional.of("worker " + peer + " declares a channel to itself");
        }
        if (!seen.add(peer)) {
          return Optional.of("peer " + peer + " is declared twice");
        }
      }
    }
    return Optional.empty();
  }

  private void requestSnapshot(long requestId) {
    LiveSession s = session;
    var unused =
        ctx.lifecycle()
            .trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_WORKER, s.workerId())
            .thenAccept(
                result -> {
                  SnapshotGranted.Builder granted =
                      SnapshotGranted.newBuilder().setRequestId(requestId);
                  if (result instanceof TriggerResult.Started started) {
                    granted
                        .setSnapshotId(started.snapshotId())
                        .setEpoch(started.manifest().getEpoch());
                  } else {
                    granted
                        .setRefusedReason(((TriggerResult.Refused) result).message())
                        .setEpoch(ctx.epoch());
                  }
                  s.send(CoordinatorMessage.newBuilder().setSnapshotGranted(granted).build());
                });
  }

  private void refuse(Status status) {
    done = true;
    try {
      out.onError(status.asRuntimeException());
    } catch (RuntimeException ignored) {
      // cancelled meanwhile
    }
  }

  private void end(Status status) {
    done = true;
    ctx.lost(session.workerId(), session.token(), status);
  }

  /** A transport thread: posts the end of the stream to the loop. */
  @Override
  public void onError(Throwable t) {
    ctx.loop().execute(() -> broke(t));
  }

  private void broke(Throwable t) {
    if (!done && session != null) {
      done = true;
      session.ended();
      ctx.lost(
          session.workerId(),
          session.token(),
          Status.UNAVAILABLE.withDescription("session stream broke: " + StatusText.of(t)));
    }
    done = true;
  }

  /** A transport thread: posts the end of the stream to the loop. */
  @Override
  public void onCompleted() {
    ctx.loop().execute(this::completed);
  }

  private void completed() {
    if (!done && session != null) {
      done = true;
      ctx.lost(
          session.workerId(),
          session.token(),
          Status.OK.withDescription("the worker ended its session"));
      return;
    }
    if (!done) {
      done = true;
      out.onCompleted();
    }
  }
}
