package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.Heartbeat;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.SnapshotRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionServiceTest {

  @TempDir Path dir;
  private InProcessCoordinator coordinator;
  private final List<RawWorker> workers = new ArrayList<>();
  private ScheduledExecutorService heartbeats;

  private void start(Duration heartbeatTimeout) {
    coordinator =
        new InProcessCoordinator(
            InProcessCoordinator.config(dir)
                .heartbeatInterval(Duration.ofMillis(50))
                .heartbeatTimeout(heartbeatTimeout)
                .build());
  }

  private RawWorker worker(String id) {
    RawWorker w = new RawWorker(coordinator.async(), id);
    workers.add(w);
    return w;
  }

  @AfterEach
  void tearDown() throws Exception {
    if (heartbeats != null) {
      heartbeats.shutdownNow();
      heartbeats.awaitTermination(5, TimeUnit.SECONDS);
    }
    workers.forEach(RawWorker::close);
    if (coordinator != null) {
      coordinator.close();
    }
  }

  @Test
  void aJoinWithABadWorkerIdIsRefusedWithInvalidArgument() throws Exception {
    start(Duration.ofSeconds(5));
    RawWorker w = worker("bad id!").join(List.of(), List.of());
    Status s = w.endStatus();
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("bad id!");

    RawWorker longId = worker("x".repeat(129)).join(List.of(), List.of());
    assertThat(longId.endStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    RawWorker noAddress = worker("a").join(Join.newBuilder().setWorkerId("a").build());
    assertThat(noAddress.endStatus().getDescription()).contains("address");
    RawWorker self = worker("s").join(List.of("s"), List.of());
    assertThat(self.endStatus().getDescription()).contains("to itself");
  }

  @Test
  void aSessionMustStartWithAJoin() throws Exception {
    start(Duration.ofSeconds(5));
    RawWorker w = worker("a");
    w.join(List.of(), List.of()); // opens the stream; then a second join is refused
    w.await(CoordinatorMessage::hasWelcome);
    w.send(WorkerMessage.newBuilder().setJoin(Join.newBuilder().setWorkerId("a")).build());
    assertThat(w.endStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);

    RawWorker h = new RawWorker(coordinator.async(), "h");
    workers.add(h);
    h.join(Join.newBuilder().setWorkerId("h").setChannelAddress("localhost:1").build());
    h.await(CoordinatorMessage::hasWelcome);
    // a heartbeat before any join on a fresh stream
    RawWorker raw = worker("r");
    var stream =
        coordinator
            .async()
            .session(
                new io.grpc.stub.StreamObserver<CoordinatorMessage>() {
                  @Override
                  public void onNext(CoordinatorMessage m) {
                    raw.receive(m);
                  }

                  @Override
                  public void onError(Throwable t) {
                    raw.ended.complete(Status.fromThrowable(t));
                  }

                  @Override
                  public void onCompleted() {
                    raw.ended.complete(Status.OK);
                  }
                });
    stream.onNext(WorkerMessage.newBuilder().setHeartbeat(Heartbeat.getDefaultInstance()).build());
    assertThat(raw.endStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(raw.endStatus().getDescription()).contains("must be join");
  }

  @Test
  void aWorkerInAnEpochAheadOfTheStoresIsNotWelcomedAndMayAskAgain() throws Exception {
    start(Duration.ofSeconds(5));
    RawWorker ahead =
        worker("a")
            .join(
                Join.newBuilder()
                    .setWorkerId("a")
                    .setChannelAddress("localhost:7000")
                    .setEpoch(5)
                    .build());
    Status s = ahead.endStatus();
    assertThat(s.getCode())
        .as("not fatal: the worker joins again")
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.getDescription())
        .contains("worker a is in epoch 5, ahead of this coordinator's epoch 0");
    worker("a")
        .join(
            Join.newBuilder()
                .setWorkerId("a")
                .setChannelAddress("localhost:7000")
                .setEpoch(0)
                .build())
        .await(CoordinatorMessage::hasWelcome);
  }

  @Test
  void aSecondLiveSessionWithTheSameWorkerIdIsRefusedWithAlreadyExists() throws Exception {
    start(Duration.ofSeconds(5));
    worker("a").join(List.of(), List.of()).await(CoordinatorMessage::hasWelcome);
    RawWorker twin = worker("a").join(List.of(), List.of());
    assertThat(twin.endStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
  }

  @Test
  void channelsThatContradictTheTopologyAreRefusedWithFailedPrecondition() throws Exception {
    start(Duration.ofSeconds(5));
    worker("b").join(List.of(), List.of()).await(CoordinatorMessage::hasWelcome);
    RawWorker a = worker("a").join(List.of("b"), List.of());
    Status s = a.endStatus();
    assertThat(s.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(s.getDescription()).contains("a declares a channel to b");
  }

  @Test
  void peersLearnEachOthersAddresses() throws Exception {
    start(Duration.ofSeconds(5));
    RawWorker a =
        worker("a")
            .join(
                Join.newBuilder()
                    .setWorkerId("a")
                    .setChannelAddress("hosta:1")
                    .addOutgoing("b")
                    .build());
    assertThat(a.await(CoordinatorMessage::hasWelcome).getWelcome().getPeersList()).isEmpty();
    RawWorker b =
        worker("b")
            .join(
                Join.newBuilder()
                    .setWorkerId("b")
                    .setChannelAddress("hostb:2")
                    .addIncoming("a")
                    .build());
    var welcome = b.await(CoordinatorMessage::hasWelcome).getWelcome();
    assertThat(welcome.getPeersList())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getWorkerId()).isEqualTo("a");
              assertThat(p.getChannelAddress()).isEqualTo("hosta:1");
            });
    assertThat(welcome.getHeartbeatIntervalMs()).isEqualTo(50);
    var update = a.await(CoordinatorMessage::hasPeers).getPeers();
    assertThat(update.getPeersList())
        .singleElement()
        .satisfies(p -> assertThat(p.getChannelAddress()).isEqualTo("hostb:2"));
  }

  @Test
  void missedHeartbeatsMarkAWorkerLostAndAbortItsPendingSnapshot() throws Exception {
    start(Duration.ofMillis(600));
    RawWorker a = worker("a").join(List.of("b"), List.of("b"));
    RawWorker b = worker("b").join(List.of("a"), List.of("a"));
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    heartbeats = Executors.newSingleThreadScheduledExecutor();
    heartbeats.scheduleAtFixedRate(a::heartbeat, 0, 50, TimeUnit.MILLISECONDS);

    long id =
        coordinator
            .admin()
            .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
            .getSnapshotId();
    assertThat(a.await(CoordinatorMessage::hasStartSnapshot).getStartSnapshot().getSnapshotId())
        .isEqualTo(id);

    // b never heartbeats
    assertThat(a.await(CoordinatorMessage::hasAbortSnapshot).getAbortSnapshot().getSnapshotId())
        .isEqualTo(id);
    assertThat(b.endStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    var manifest =
        coordinator
            .admin()
            .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
            .getManifest();
    assertThat(manifest.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(manifest.getReason()).contains("worker b was lost");
    ClusterView view = coordinator.admin().getCluster(GetClusterRequest.getDefaultInstance());
    assertThat(view.getWorkersList())
        .extracting(w -> w.getDecl().getWorkerId() + " " + w.getState())
        .containsExactly(
            "a " + WorkerState.WORKER_STATE_RUNNING, "b " + WorkerState.WORKER_STATE_LOST);
    assertThat(coordinator.registry.get("cutpoint.workers").tag("state", "lost").gauge().value())
        .isEqualTo(1.0);
  }

  @Test
  void aBrokenStreamMarksTheWorkerLostAndItMayRejoin() throws Exception {
    start(Duration.ofSeconds(5));
    RawWorker a = worker("a").join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    a.close();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                coordinator
                        .admin()
                        .getCluster(GetClusterRequest.getDefaultInstance())
                        .getWorkers(0)
                        .getState()
                    == WorkerState.WORKER_STATE_LOST);
    worker("a").join(List.of(), List.of()).await(CoordinatorMessage::hasWelcome);
  }

  @Test
  void aWorkerThatAsksForASnapshotIsGrantedAFreshIdAndInitiatesIt() throws Exception {
    start(Duration.ofSeconds(5));
    RawWorker a = worker("a").join(List.of("b"), List.of());
    RawWorker b = worker("b").join(List.of(), List.of("a"));
    RawWorker lonely = worker("lonely").join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    lonely.await(CoordinatorMessage::hasWelcome);

    b.send(
        WorkerMessage.newBuilder()
            .setSnapshotRequest(SnapshotRequest.newBuilder().setRequestId(77))
            .build());
    var granted = b.await(CoordinatorMessage::hasSnapshotGranted).getSnapshotGranted();
    assertThat(granted.getRequestId()).isEqualTo(77);
    assertThat(granted.getSnapshotId()).isPositive();
    // b initiates itself; a (source of a -> b) and lonely are started by the coordinator
    assertThat(a.await(CoordinatorMessage::hasStartSnapshot).getStartSnapshot().getSnapshotId())
        .isEqualTo(granted.getSnapshotId());
    assertThat(
            lonely.await(CoordinatorMessage::hasStartSnapshot).getStartSnapshot().getSnapshotId())
        .isEqualTo(granted.getSnapshotId());
    // b's stream is ordered: once the answer to a later request reached b, a StartSnapshot sent
    // to b before it would be in b's history, also if await skipped it.
    b.send(
        WorkerMessage.newBuilder()
            .setSnapshotRequest(SnapshotRequest.newBuilder().setRequestId(79))
            .build());
    assertThat(
            b.await(m -> m.hasSnapshotGranted() && m.getSnapshotGranted().getRequestId() == 79)
                .getSnapshotGranted()
                .getSnapshotId())
        .as("a request while one is pending")
        .isZero();
    assertThat(b.history()).noneMatch(CoordinatorMessage::hasStartSnapshot);

    // a second request while one is pending is refused with a reason
    a.send(
        WorkerMessage.newBuilder()
            .setSnapshotRequest(SnapshotRequest.newBuilder().setRequestId(78))
            .build());
    var refused = a.await(CoordinatorMessage::hasSnapshotGranted).getSnapshotGranted();
    assertThat(refused.getSnapshotId()).isZero();
    assertThat(refused.getRefusedReason()).contains("pending");
  }
}
