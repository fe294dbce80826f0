package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.AbortSnapshotRequest;
import io.cutpoint.api.v1.AbortSnapshotResponse;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.AnalyzeRequest;
import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.CancelRollbackRequest;
import io.cutpoint.api.v1.CancelRollbackResponse;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.DeleteSnapshotRequest;
import io.cutpoint.api.v1.DeleteSnapshotResponse;
import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.GetChannelStateResponse;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.GetSnapshotResponse;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.ListSnapshotsResponse;
import io.cutpoint.api.v1.PinSnapshotRequest;
import io.cutpoint.api.v1.PinSnapshotResponse;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.RemoveWorkerRequest;
import io.cutpoint.api.v1.RemoveWorkerResponse;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SetScheduleRequest;
import io.cutpoint.api.v1.SetScheduleResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.api.v1.WatchEventsRequest;
import io.cutpoint.api.v1.WorkerView;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.server.CoordinatorContext;
import io.cutpoint.server.events.EventStream;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.TriggerResult;
import io.cutpoint.server.membership.InitiatorSelection;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.membership.WorkerIds;
import io.cutpoint.server.membership.WorkerRemoval;
import io.cutpoint.server.rollback.RollbackRefused;
import io.cutpoint.server.rollback.RollbackStatus;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.DeletionRefusedException;
import io.cutpoint.storage.NoSuchSnapshotException;
import io.cutpoint.storage.NotPendingException;
import io.cutpoint.storage.StoreException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.EnumSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The operator-facing service: validates each request and maps store and domain errors to statuses.
 * Its handlers run on transport threads: they read the views the coordinator loop publishes (never
 * waiting for it), and post what changes the coordinator's state to the loop, answering from the
 * loop's reply.
 */
public final class AdminService extends AdminGrpc.AdminImplBase {

  static final int DEFAULT_LIST_PAGE = 50;
  static final int MAX_LIST_PAGE = 1000;
  static final int DEFAULT_CLUSTER_PAGE = 100;
  static final int MAX_CLUSTER_PAGE = 1000;

  /**
   * A cluster or snapshot page stops adding entries once it passes about this many bytes: well
   * under the 4 MiB a gRPC client takes by default, however large the topology.
   */
  static final long PAGE_BYTES = 1 << 20;

  static final int DEFAULT_CHANNEL_PAGE = 100;
  static final int MAX_CHANNEL_PAGE = 10000;

  /** How long a handler waits for the coordinator loop's answer. */
  private static final long LOOP_WAIT_SECONDS = 30;

  private final CoordinatorContext ctx;
  private final LongFunction<AnalyzeResponse> analyzer;
  private final int watcherBuffer;

  /**
   * @param analyzer analyses a complete snapshot; throws {@link NoSuchElementException}, {@link
   *     IllegalStateException} or {@link CorruptionException} as {@code SnapshotAnalyzer} does
   */
  public AdminService(
      CoordinatorContext ctx, LongFunction<AnalyzeResponse> analyzer, int watcherBuffer) {
    this.ctx = ctx;
    this.analyzer = analyzer;
    this.watcherBuffer = watcherBuffer;
  }

  @Override
  public void triggerSnapshot(
      TriggerSnapshotRequest req, StreamObserver<TriggerSnapshotResponse> out) {
    var unused =
        ctx.loop()
            .callAsync(() -> ctx.lifecycle().trigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN, null))
            .whenComplete(
                (result, error) -> {
                  if (error != null) {
                    out.onError(
                        Status.UNAVAILABLE
                            .withDescription("no snapshot started: the coordinator is stopping")
                            .asRuntimeException());
                  } else {
                    triggered(req, result, out);
                  }
                });
  }

  private void triggered(
      TriggerSnapshotRequest req,
      TriggerResult result,
      StreamObserver<TriggerSnapshotResponse> out) {
    if (result instanceof TriggerResult.Refused r) {
      out.onError(
          (r.reason() == TriggerResult.Reason.STORE_ERROR
                  ? Status.UNAVAILABLE
                  : Status.FAILED_PRECONDITION)
              .withDescription("no snapshot started: " + r.message())
              .asRuntimeException());
      return;
    }
    TriggerResult.Started s = (TriggerResult.Started) result;
    if (!req.getWait()) {
      out.onNext(
          TriggerSnapshotResponse.newBuilder()
              .setSnapshotId(s.snapshotId())
              .setManifest(s.manifest())
              .build());
      out.onCompleted();
      return;
    }
    long waitMs =
        req.getWaitTimeoutMs() == 0
            ? ctx.config().snapshotTimeout().toMillis() + 1000
            : Integer.toUnsignedLong(req.getWaitTimeoutMs()); // a uint32
    var unused =
        s.outcome()
            .copy()
            .orTimeout(waitMs, TimeUnit.MILLISECONDS)
            .whenComplete(
                (manifest, error) -> {
                  if (error != null) {
                    out.onError(
                        Status.DEADLINE_EXCEEDED
                            .withDescription(
                                "snapshot "
                                    + s.snapshotId()
                                    + " is still pending after "
                                    + waitMs
                                    + " ms")
                            .asRuntimeException());
                    return;
                  }
                  out.onNext(
                      TriggerSnapshotResponse.newBuilder()
                          .setSnapshotId(s.snapshotId())
                          .setManifest(manifest)
                          .build());
                  out.onCompleted();
                });
  }

  @Override
  public void listSnapshots(ListSnapshotsRequest req, StreamObserver<ListSnapshotsResponse> out) {
    call(
        out,
        () -> {
          Set<SnapshotStatus> statuses = EnumSet.noneOf(SnapshotStatus.class);
          for (SnapshotStatus st : req.getStatusesList()) {
            if (st == SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED
                || st == SnapshotStatus.UNRECOGNIZED) {
              throw invalid("statuses may not contain " + st);
            }
            statuses.add(st);
          }
          int size = pageSize(req.getPageSize(), DEFAULT_LIST_PAGE, MAX_LIST_PAGE);
          long before = req.getPageToken().isEmpty() ? Long.MAX_VALUE : token(req.getPageToken());
          List<SnapshotManifest> all = ctx.store().list(statuses);
          ListSnapshotsResponse.Builder b = ListSnapshotsResponse.newBuilder();
          long last = 0;
          long bytes = 0;
          boolean more = false;
          for (SnapshotManifest m : all) {
            if (m.getSnapshotId() >= before || (req.getPinnedOnly() && !m.getPinned())) {
              continue;
            }
            if (b.getSnapshotsCount() == size
                || (b.getSnapshotsCount() > 0 && bytes > PAGE_BYTES)) {
              more = true;
              break;
            }
            SnapshotManifest listed = m.toBuilder().clearPieces().build();
            b.addSnapshots(listed);
            bytes += listed.getSerializedSize();
            last = m.getSnapshotId();
          }
          if (more) {
            b.setNextPageToken(Long.toString(last));
          }
          return b.build();
        });
  }

  @Override
  public void getSnapshot(GetSnapshotRequest req, StreamObserver<GetSnapshotResponse> out) {
    call(
        out,
        () -> {
          long id = snapshotId(req.getSnapshotId());
          SnapshotManifest m =
              ctx.lifecycle()
                  .pendingManifest(id)
                  .or(() -> ctx.store().manifest(id))
                  .orElseThrow(() -> notFound(id));
          return GetSnapshotResponse.newBuilder().setManifest(m).build();
        });
  }

  @Override
  public void getChannelState(
      GetChannelStateRequest req, StreamObserver<GetChannelStateResponse> out) {
    call(
        out,
        () -> {
          long id = snapshotId(req.getSnapshotId());
          ChannelRef ref = req.getChannel();
          if (!WorkerIds.valid(ref.getFrom()) || !WorkerIds.valid(ref.getTo())) {
            throw invalid(
                "channel needs valid from and to worker ids, got '"
                    + ref.getFrom()
                    + "' -> '"
                    + ref.getTo()
                    + "'");
          }
          int size = pageSize(req.getPageSize(), DEFAULT_CHANNEL_PAGE, MAX_CHANNEL_PAGE);
          long offset = req.getPageToken().isEmpty() ? 0 : token(req.getPageToken());
          SnapshotManifest m = ctx.store().manifest(id).orElseThrow(() -> notFound(id));
          if (m.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
            throw Status.FAILED_PRECONDITION
                .withDescription(
                    "snapshot "
                        + id
                        + " is "
                        + m.getStatus()
                        + "; channel states are kept for complete snapshots only")
                .asRuntimeException();
          }
          boolean declared =
              m.getTopology().getWorkersList().stream()
                  .anyMatch(
                      w ->
                          w.getWorkerId().equals(ref.getTo())
                              && w.getIncomingList().contains(ref.getFrom()));
          if (!declared) {
            throw Status.NOT_FOUND
                .withDescription(
                    "snapshot " + id + " has no channel " + ref.getFrom() + "->" + ref.getTo())
                .asRuntimeException();
          }
          List<InTransitMessage> all =
              ctx.store().readChannel(id, ChannelId.of(ref.getFrom(), ref.getTo()));
          GetChannelStateResponse.Builder b =
              GetChannelStateResponse.newBuilder().setTotalMessages(all.size());
          int from = (int) Math.min(offset, all.size());
          int to = Math.min(all.size(), from + size);
          for (InTransitMessage r : all.subList(from, to)) {
            b.addMessages(
                RecordedMessage.newBuilder()
                    .setSeq(r.seq())
                    .setPayload(com.google.protobuf.ByteString.copyFrom(r.payload())));
          }
          if (to < all.size()) {
            b.setNextPageToken(Integer.toString(to));
          }
          return b.build();
        });
  }

  @Override
  public void deleteSnapshot(
      DeleteSnapshotRequest req, StreamObserver<DeleteSnapshotResponse> out) {
    call(
        out,
        () -> {
          long id = snapshotId(req.getSnapshotId());
          SnapshotManifest m = ctx.store().manifest(id).orElseThrow(() -> notFound(id));
          if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
            throw Status.FAILED_PRECONDITION
                .withDescription("snapshot " + id + " is pending; it can be deleted once it ends")
                .asRuntimeException();
          }
          if (m.getPinned()) {
            throw Status.FAILED_PRECONDITION
                .withDescription("snapshot " + id + " is pinned; unpin it first")
                .asRuntimeException();
          }
          if (ctx.rollback().uses(id)) {
            throw Status.FAILED_PRECONDITION
                .withDescription("snapshot " + id + " is the target of a rollback in progress")
                .asRuntimeException();
          }
          if (!ctx.store().delete(id)) {
            throw notFound(id);
          }
          ctx.events()
              .publish(
                  EventType.EVENT_TYPE_SNAPSHOT_DELETED, id, null, "deleted by an operator", 0);
          ctx.metrics().storeSize(ctx.store().sizeBytes());
          return DeleteSnapshotResponse.getDefaultInstance();
        });
  }

  @Override
  public void pinSnapshot(PinSnapshotRequest req, StreamObserver<PinSnapshotResponse> out) {
    call(
        out,
        () -> {
          long id = snapshotId(req.getSnapshotId());
          SnapshotManifest m = ctx.store().manifest(id).orElseThrow(() -> notFound(id));
          if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
            throw Status.FAILED_PRECONDITION
                .withDescription("snapshot " + id + " is still pending")
                .asRuntimeException();
          }
          return PinSnapshotResponse.newBuilder()
              .setManifest(ctx.store().setPinned(id, req.getPinned()))
              .build();
        });
  }

  @Override
  public void rollback(RollbackRequest req, StreamObserver<RollbackResponse> out) {
    var unused =
        ctx.loop()
            .callAsync(() -> ctx.rollback().rollback(req))
            .whenComplete(
                (response, error) -> {
                  if (error == null) {
                    out.onNext(response);
                    out.onCompleted();
                  } else {
                    Throwable cause =
                        error instanceof java.util.concurrent.CompletionException
                                && error.getCause() != null
                            ? error.getCause()
                            : error;
                    out.onError(
                        cause instanceof RollbackRefused r
                            ? status(r).asRuntimeException()
                            : cause instanceof java.util.concurrent.RejectedExecutionException
                                ? Status.UNAVAILABLE
                                    .withDescription("the coordinator is stopping")
                                    .asRuntimeException()
                                : Status.INTERNAL
                                    .withDescription("rollback failed: " + cause)
                                    .asRuntimeException());
                  }
                });
  }

  /** The status a rollback refusal answers. */
  static Status status(RollbackRefused r) {
    Status s =
        switch (r.kind()) {
          case BAD_TARGET_ID -> Status.INVALID_ARGUMENT;
          case NO_SUCH_SNAPSHOT -> Status.NOT_FOUND;
          case NOT_NOW -> Status.FAILED_PRECONDITION;
          case TARGET_DAMAGED -> Status.DATA_LOSS;
          case STOPPING -> Status.UNAVAILABLE;
          case RUN_FAILED -> Status.ABORTED;
          case NOT_SUPPORTED -> Status.UNIMPLEMENTED;
          case ERROR -> Status.INTERNAL;
        };
    return s.withDescription(r.getMessage());
  }

  @Override
  public void getCluster(GetClusterRequest req, StreamObserver<ClusterView> out) {
    call(
        out,
        () -> {
          Membership.View view = ctx.membership().view();
          ClusterView.Builder b =
              ClusterView.newBuilder()
                  .setEpoch(ctx.epoch())
                  .setRollbackInProgress(ctx.rollback().inProgress())
                  .addAllPendingSnapshots(ctx.lifecycle().pendingIds())
                  .setLatestCompleteSnapshot(
                      ctx.store().latestComplete().map(SnapshotManifest::getSnapshotId).orElse(0L));
          int size = pageSize(req.getPageSize(), DEFAULT_CLUSTER_PAGE, MAX_CLUSTER_PAGE);
          String after = req.getPageToken();
          if (!after.isEmpty() && !io.cutpoint.server.membership.WorkerIds.valid(after)) {
            throw invalid("page_token is not one this server issued");
          }
          java.util.SortedMap<String, Membership.Member> rest =
              after.isEmpty() ? view.members() : view.members().tailMap(after + "\0");
          java.util.Set<String> page = new java.util.HashSet<>();
          long bytes = 0;
          String last = null;
          for (Membership.Member m : rest.values()) {
            if (page.size() == size || (!page.isEmpty() && bytes > PAGE_BYTES)) {
              b.setNextPageToken(last);
              break;
            }
            WorkerView w =
                WorkerView.newBuilder()
                    .setDecl(m.decl().toProto())
                    .setState(m.state())
                    .setLastHeartbeatUnixMs(m.lastHeartbeatMs())
                    .setLocalCopySnapshotId(m.localCopy().getSnapshotId())
                    .build();
            b.addWorkers(w);
            bytes += 2L * w.getSerializedSize(); // and about as much again for its channels
            last = m.decl().workerId();
            page.add(last);
          }
          for (ChannelId c : view.topology().channels()) {
            if (page.contains(c.from())) {
              b.addChannels(ChannelRef.newBuilder().setFrom(c.from()).setTo(c.to()));
            }
          }
          b.setTotalWorkers(view.members().size())
              .setTotalChannels(view.topology().channels().size());
          b.setRollback(AdminViews.rollback(ctx.rollback().status()));
          b.setSchedule(AdminViews.schedule(ctx.schedule()));
          ctx.schedule()
              .blocked()
              .ifPresent(block -> b.setSnapshotsBlocked(AdminViews.blocked(block)));
          b.addAllInitiators(
              InitiatorSelection.select(view.topology().workerIds(), view.topology().channels()));
          return b.build();
        });
  }

  @Override
  public void removeWorker(RemoveWorkerRequest req, StreamObserver<RemoveWorkerResponse> out) {
    call(
        out,
        () -> {
          if (!WorkerIds.valid(req.getWorkerId())) {
            throw invalid(
                "worker_id is not a valid worker id: '"
                    + AdminViews.bounded(req.getWorkerId())
                    + "'");
          }
          WorkerRemoval r = onLoop(() -> ctx.removeWorker(req.getWorkerId(), "by an operator"));
          Status status =
              switch (r.outcome()) {
                case REMOVED -> Status.OK;
                case UNKNOWN -> Status.NOT_FOUND;
                case LIVE, NEEDED -> Status.FAILED_PRECONDITION;
              };
          if (!status.isOk()) {
            throw status.withDescription(r.message()).asRuntimeException();
          }
          return RemoveWorkerResponse.getDefaultInstance();
        });
  }

  @Override
  public void cancelRollback(
      CancelRollbackRequest req, StreamObserver<CancelRollbackResponse> out) {
    call(
        out,
        () -> {
          RollbackStatus.Cancel c = onLoop(() -> ctx.rollback().cancel());
          if (c instanceof RollbackStatus.NotCancelled n) {
            throw Status.FAILED_PRECONDITION
                .withDescription("nothing cancelled: " + n.message())
                .asRuntimeException();
          }
          RollbackStatus.Cancelled done = (RollbackStatus.Cancelled) c;
          return CancelRollbackResponse.newBuilder()
              .setSnapshotId(done.snapshotId())
              .setEpoch(done.epoch())
              .addAllResumedUnrestored(done.resumedUnrestored())
              .addAllResumedAfterRestore(done.resumedAfterRestore())
              .build();
        });
  }

  @Override
  public void abortSnapshot(AbortSnapshotRequest req, StreamObserver<AbortSnapshotResponse> out) {
    call(
        out,
        () -> {
          long id = snapshotId(req.getSnapshotId());
          java.util.Optional<java.util.concurrent.CompletableFuture<SnapshotManifest>> outcome =
              onLoop(
                  () ->
                      ctx.lifecycle().abort(id, FailureReason.OPERATOR, "aborted by an operator"));
          if (outcome.isEmpty()) {
            if (ctx.lifecycle().pendingManifest(id).isPresent()) {
              throw Status.FAILED_PRECONDITION
                  .withDescription(
                      "snapshot " + id + " is being committed: it can no longer be aborted")
                  .asRuntimeException();
            }
            SnapshotManifest m = ctx.store().manifest(id).orElseThrow(() -> notFound(id));
            throw Status.FAILED_PRECONDITION
                .withDescription("snapshot " + id + " is not pending: it is " + m.getStatus())
                .asRuntimeException();
          }
          return AbortSnapshotResponse.newBuilder()
              .setManifest(recorded(id, outcome.get()))
              .build();
        });
  }

  @Override
  public void setSchedule(SetScheduleRequest req, StreamObserver<SetScheduleResponse> out) {
    call(
        out,
        () -> {
          onLoop(() -> ctx.schedule().setPaused(req.getPaused(), "by an operator"));
          return SetScheduleResponse.newBuilder()
              .setSchedule(AdminViews.schedule(ctx.schedule()))
              .build();
        });
  }

  @Override
  public void watchEvents(WatchEventsRequest req, StreamObserver<Event> out) {
    new EventStream((ServerCallStreamObserver<Event>) out, watcherBuffer).attach(ctx.events());
  }

  @Override
  public void analyze(AnalyzeRequest req, StreamObserver<AnalyzeResponse> out) {
    call(
        out,
        () -> {
          long id = snapshotId(req.getSnapshotId());
          try {
            return analyzer.apply(id);
          } catch (NoSuchElementException e) {
            throw Status.NOT_FOUND.withDescription(e.getMessage()).asRuntimeException();
          } catch (IllegalStateException e) {
            throw Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException();
          }
        });
  }

  /**
   * Runs {@code body} on the coordinator loop and waits for its value (the loop answers in
   * microseconds: it never waits for I/O). A transport thread.
   */
  private <T> T onLoop(Supplier<T> body) {
    try {
      return ctx.loop().call(body).get(LOOP_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r
          && !(r instanceof java.util.concurrent.RejectedExecutionException)) {
        throw r;
      }
      throw Status.UNAVAILABLE.withDescription("the coordinator is stopping").asRuntimeException();
    } catch (TimeoutException e) {
      throw Status.UNAVAILABLE
          .withDescription("the coordinator did not answer within " + LOOP_WAIT_SECONDS + " s")
          .asRuntimeException();
    }
  }

  /** The manifest of an aborted snapshot once the store has its end, waiting a bounded time. */
  private static SnapshotManifest recorded(
      long id, java.util.concurrent.CompletableFuture<SnapshotManifest> outcome) {
    try {
      return outcome.get(LOOP_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      throw Status.UNAVAILABLE
          .withDescription(
              "snapshot "
                  + id
                  + " is aborted, but the store has not recorded it within "
                  + LOOP_WAIT_SECONDS
                  + " s")
          .asRuntimeException();
    }
  }

  /** Runs {@code body} and answers its value, or the status its failure maps to. */
  private static <T> void call(StreamObserver<T> out, Supplier<T> body) {
    T value;
    try {
      value = body.get();
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    } catch (CorruptionException e) {
      out.onError(Status.DATA_LOSS.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (NoSuchSnapshotException e) {
      out.onError(Status.NOT_FOUND.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (NotPendingException | DeletionRefusedException e) {
      out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (StoreException e) {
      out.onError(
          Status.UNAVAILABLE
              .withDescription("store failed: " + e.getMessage())
              .asRuntimeException());
      return;
    }
    out.onNext(value);
    out.onCompleted();
  }

  private static long snapshotId(long id) {
    if (id == 0) {
      throw invalid("snapshot_id is required (ids start at 1)");
    }
    if (id < 0) { // a uint64 of 2^63 or more
      throw invalid(
          "snapshot_id " + Long.toUnsignedString(id) + " is out of range (ids are below 2^63)");
    }
    return id;
  }

  private static int pageSize(int requested, int dflt, int max) {
    if (requested < 0 || requested > max) {
      throw invalid(
          "page_size must be at most " + max + ", got " + Integer.toUnsignedString(requested));
    }
    return requested == 0 ? dflt : requested;
  }

  private static long token(String token) {
    try {
      long v = Long.parseLong(token);
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      // Echo a bounded prefix: a huge token in the status would overflow the trailers.
      String shown =
          token.length() <= 40
              ? "'" + token + "'"
              : "'" + token.substring(0, 40) + "...' (" + token.length() + " characters)";
      throw invalid("page_token " + shown + " is not one this server issued");
    }
  }

  private static StatusRuntimeException notFound(long id) {
    return Status.NOT_FOUND.withDescription("no snapshot " + id).asRuntimeException();
  }

  private static StatusRuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }
}
