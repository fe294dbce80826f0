package io.cutpoint.ops.admin;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.AbortSnapshotRequest;
import io.cutpoint.api.v1.AbortSnapshotResponse;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CancelRollbackRequest;
import io.cutpoint.api.v1.CancelRollbackResponse;
import io.cutpoint.api.v1.ChannelCounter;
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
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.PhaseTimings;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.RemoveWorkerRequest;
import io.cutpoint.api.v1.RemoveWorkerResponse;
import io.cutpoint.api.v1.RollbackPhase;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.RollbackView;
import io.cutpoint.api.v1.ScheduleView;
import io.cutpoint.api.v1.SetScheduleRequest;
import io.cutpoint.api.v1.SetScheduleResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.SnapshotsBlocked;
import io.cutpoint.api.v1.SnapshotsBlockedReason;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.api.v1.WatchEventsRequest;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.api.v1.WorkerView;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** An Admin service with canned answers, on a real port, for testing the commands' output. */
final class FakeAdmin extends AdminGrpc.AdminImplBase implements AutoCloseable {

  static final SnapshotManifest COMPLETE =
      SnapshotManifest.newBuilder()
          .setSnapshotId(7)
          .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
          .setEpoch(1)
          .setStartedAtUnixMs(1_000)
          .setFinishedAtUnixMs(1_050)
          .setTrigger(SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN)
          .addInitiators("a")
          .setTopology(
              Topology.newBuilder()
                  .addWorkers(
                      WorkerDecl.newBuilder().setWorkerId("a").addOutgoing("b").addIncoming("b"))
                  .addWorkers(
                      WorkerDecl.newBuilder().setWorkerId("b").addOutgoing("a").addIncoming("a")))
          .addPieces(
              WorkerPiece.newBuilder()
                  .setWorkerId("a")
                  .setStateChunks(1)
                  .setInFlightMessages(2)
                  .setChannelBytes(10)
                  .setHeaderReceivedMicros(3_000)
                  .setDeliveredMicros(3_500)
                  .setMeta(
                      LocalSnapshotMeta.newBuilder()
                          .setStateBytes(2048)
                          .addSent(ChannelCounter.newBuilder().setPeer("b").setCount(5))
                          .addReceived(ChannelCounter.newBuilder().setPeer("b").setCount(3))
                          .setTimeline(
                              io.cutpoint.api.v1.WorkerTimeline.newBuilder()
                                  .setBeganMicros(2_500)
                                  .setCapturedMicros(2_400)
                                  .addClosed(
                                      io.cutpoint.api.v1.ChannelClosed.newBuilder()
                                          .setFrom("b")
                                          .setMicros(1_000))
                                  .setCompletedMicros(1_000))))
          .setTotalStateBytes(4096)
          .setTotalChannelBytes(10)
          .setInFlightMessages(2)
          .setTimings(
              PhaseTimings.newBuilder().setTotalMicros(50_000).setMarkerPropagationMicros(20_000))
          .build();

  static final SnapshotManifest ABORTED =
      SnapshotManifest.newBuilder()
          .setSnapshotId(8)
          .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
          .setReason("timed out after 60s")
          .build();

  private final Server server;
  volatile ListSnapshotsRequest lastList;

  /** The rollback the cluster view shows. */
  volatile RollbackView rollbackView = RollbackView.getDefaultInstance();

  /**
   * Counted down by every cluster view served: a rollback of snapshot 9 with wait answers after
   * one.
   */
  final java.util.concurrent.CountDownLatch clusterAsked =
      new java.util.concurrent.CountDownLatch(1);

  FakeAdmin() throws IOException {
    server = ServerBuilder.forPort(0).addService(this).build().start();
  }

  String target() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void triggerSnapshot(TriggerSnapshotRequest r, StreamObserver<TriggerSnapshotResponse> o) {
    SnapshotManifest m = r.getWaitTimeoutMs() == 1234 ? ABORTED : COMPLETE;
    o.onNext(
        TriggerSnapshotResponse.newBuilder()
            .setSnapshotId(m.getSnapshotId())
            .setManifest(m)
            .build());
    o.onCompleted();
  }

  @Override
  public void listSnapshots(ListSnapshotsRequest r, StreamObserver<ListSnapshotsResponse> o) {
    lastList = r;
    o.onNext(
        ListSnapshotsResponse.newBuilder().addSnapshots(ABORTED).addSnapshots(COMPLETE).build());
    o.onCompleted();
  }

  @Override
  public void getSnapshot(GetSnapshotRequest r, StreamObserver<GetSnapshotResponse> o) {
    if (r.getSnapshotId() != 7) {
      o.onError(
          Status.NOT_FOUND
              .withDescription("snapshot " + r.getSnapshotId() + " not found")
              .asRuntimeException());
      return;
    }
    o.onNext(GetSnapshotResponse.newBuilder().setManifest(COMPLETE).build());
    o.onCompleted();
  }

  @Override
  public void getChannelState(GetChannelStateRequest r, StreamObserver<GetChannelStateResponse> o) {
    GetChannelStateResponse.Builder b = GetChannelStateResponse.newBuilder();
    if (r.getChannel().getFrom().equals("a")) {
      b.setTotalMessages(2);
      List<RecordedMessage> all =
          List.of(
              RecordedMessage.newBuilder()
                  .setSeq(4)
                  .setPayload(ByteString.copyFromUtf8("pay 5"))
                  .build(),
              RecordedMessage.newBuilder()
                  .setSeq(5)
                  .setPayload(ByteString.copyFrom(new byte[] {1, 2}))
                  .build());
      b.addAllMessages(
          all.subList(0, Math.min(all.size(), r.getPageSize() == 0 ? 100 : r.getPageSize())));
    }
    o.onNext(b.build());
    o.onCompleted();
  }

  @Override
  public void deleteSnapshot(DeleteSnapshotRequest r, StreamObserver<DeleteSnapshotResponse> o) {
    o.onError(
        Status.FAILED_PRECONDITION
            .withDescription("snapshot " + r.getSnapshotId() + " is pinned")
            .asRuntimeException());
  }

  @Override
  public void rollback(RollbackRequest r, StreamObserver<RollbackResponse> o) {
    if (r.getSnapshotId() == 9 && r.getWait()) {
      rollbackView =
          RollbackView.newBuilder()
              .setPhase(RollbackPhase.ROLLBACK_PHASE_RUNNING)
              .setSnapshotId(9)
              .addWaitingFor("b")
              .setDetail("workers not rejoined: [b]")
              .build();
      try {
        clusterAsked.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      rollbackView = RollbackView.getDefaultInstance();
    }
    o.onNext(
        RollbackResponse.newBuilder()
            .setEpoch(2)
            .setSnapshotId(r.getSnapshotId())
            .setCompleted(r.getWait())
            .setDurationMicros(r.getWait() ? 75_000 : 0)
            .build());
    o.onCompleted();
  }

  @Override
  public void getCluster(GetClusterRequest r, StreamObserver<ClusterView> o) {
    o.onNext(
        ClusterView.newBuilder()
            .setEpoch(2)
            .setLatestCompleteSnapshot(7)
            .addInitiators("a")
            .addWorkers(
                WorkerView.newBuilder()
                    .setState(WorkerState.WORKER_STATE_RUNNING)
                    .setLocalCopySnapshotId(7)
                    .setDecl(
                        WorkerDecl.newBuilder()
                            .setWorkerId("a")
                            .setChannelAddress("127.0.0.1:5000")
                            .addOutgoing("b")
                            .addIncoming("b")))
            .addChannels(ChannelRef.newBuilder().setFrom("a").setTo("b"))
            .setRollback(rollbackView)
            .setSchedule(ScheduleView.newBuilder().setIntervalMs(10_000).setPaused(true))
            .setSnapshotsBlocked(
                SnapshotsBlocked.newBuilder()
                    .setReason(SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_WORKERS_LOST)
                    .addWorkers("b")
                    .setMessage("workers without a live session: [b]"))
            .build());
    o.onCompleted();
    clusterAsked.countDown();
  }

  @Override
  public void cancelRollback(CancelRollbackRequest r, StreamObserver<CancelRollbackResponse> o) {
    o.onNext(
        CancelRollbackResponse.newBuilder()
            .setSnapshotId(7)
            .setEpoch(3)
            .addResumedUnrestored("a")
            .addResumedAfterRestore("b")
            .build());
    o.onCompleted();
  }

  @Override
  public void removeWorker(RemoveWorkerRequest r, StreamObserver<RemoveWorkerResponse> o) {
    if (!r.getWorkerId().equals("b")) {
      o.onError(
          Status.NOT_FOUND.withDescription("no worker " + r.getWorkerId()).asRuntimeException());
      return;
    }
    o.onNext(RemoveWorkerResponse.getDefaultInstance());
    o.onCompleted();
  }

  @Override
  public void abortSnapshot(AbortSnapshotRequest r, StreamObserver<AbortSnapshotResponse> o) {
    if (r.getSnapshotId() != 8) {
      o.onError(
          Status.FAILED_PRECONDITION
              .withDescription(
                  "snapshot "
                      + r.getSnapshotId()
                      + " is not pending: it is SNAPSHOT_STATUS_COMPLETE")
              .asRuntimeException());
      return;
    }
    o.onNext(AbortSnapshotResponse.newBuilder().setManifest(ABORTED).build());
    o.onCompleted();
  }

  @Override
  public void setSchedule(SetScheduleRequest r, StreamObserver<SetScheduleResponse> o) {
    o.onNext(
        SetScheduleResponse.newBuilder()
            .setSchedule(ScheduleView.newBuilder().setIntervalMs(10_000).setPaused(r.getPaused()))
            .build());
    o.onCompleted();
  }

  @Override
  public void watchEvents(WatchEventsRequest r, StreamObserver<Event> o) {
    o.onNext(
        Event.newBuilder()
            .setType(EventType.EVENT_TYPE_SNAPSHOT_COMPLETED)
            .setSnapshotId(7)
            .setAtUnixMs(1_000)
            .setDurationMicros(50_000)
            .build());
    o.onNext(
        Event.newBuilder()
            .setType(EventType.EVENT_TYPE_WORKER_LOST)
            .setWorkerId("b")
            .setAtUnixMs(2_000)
            .setMessage("missed heartbeats")
            .build());
    o.onCompleted();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
