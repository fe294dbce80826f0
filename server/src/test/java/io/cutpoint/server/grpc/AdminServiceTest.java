package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.AbortSnapshotRequest;
import io.cutpoint.api.v1.AnalyzeRequest;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DeleteSnapshotRequest;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.ListSnapshotsResponse;
import io.cutpoint.api.v1.PinSnapshotRequest;
import io.cutpoint.api.v1.RemoveWorkerRequest;
import io.cutpoint.api.v1.ScheduleView;
import io.cutpoint.api.v1.SetScheduleRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotsBlockedReason;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminServiceTest {

  @TempDir Path dir;
  private InProcessCoordinator coordinator;
  private final List<RawWorker> workers = new ArrayList<>();

  @BeforeEach
  void setUp() {
    coordinator = new InProcessCoordinator(InProcessCoordinator.config(dir).build());
  }

  @AfterEach
  void tearDown() throws Exception {
    workers.forEach(RawWorker::close);
    coordinator.close();
  }

  private static void assertStatus(ThrowingCallable call, Status.Code code, String text) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(e.getStatus().getDescription()).contains(text);
            });
  }

  /** A lone worker and one complete snapshot of it; returns its id. */
  private long completeSnapshot() throws Exception {
    RawWorker w = welcomedSolo();
    long id = started();
    RawWorker.send(
            coordinator.async(),
            RawWorker.upload(RawWorker.meta(id, "solo"), "x".getBytes(), 1, List.of()))
        .get(10, TimeUnit.SECONDS);
    return id;
  }

  @Test
  void healthIsServingWhileTheStoreIsOpen() {
    HealthCheckResponse r =
        HealthGrpc.newBlockingStub(coordinator.channel)
            .check(HealthCheckRequest.getDefaultInstance());
    assertThat(r.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void healthHasAStatusPerServiceAndReflectionAnswersInV1AndV1Alpha() throws Exception {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(coordinator.channel);
    for (String service : List.of("", "cutpoint.v1.Coordinator", "cutpoint.v1.Admin")) {
      assertThat(
              health.check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus())
          .as(service)
          .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }
    assertStatus(
        () -> health.check(HealthCheckRequest.newBuilder().setService("cutpoint.v1.Nope").build()),
        Status.Code.NOT_FOUND,
        "");
    assertThat(reflectedServicesV1Alpha())
        .contains(
            "cutpoint.v1.Admin",
            "cutpoint.v1.Coordinator",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection");
  }

  private List<String> reflectedServicesV1Alpha() throws Exception {
    java.util.concurrent.CompletableFuture<List<String>> names =
        new java.util.concurrent.CompletableFuture<>();
    io.grpc.stub.StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionRequest> req =
        io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(coordinator.channel)
            .serverReflectionInfo(
                new io.grpc.stub.StreamObserver<>() {
                  @Override
                  public void onNext(io.grpc.reflection.v1alpha.ServerReflectionResponse r) {
                    names.complete(
                        r.getListServicesResponse().getServiceList().stream()
                            .map(io.grpc.reflection.v1alpha.ServiceResponse::getName)
                            .toList());
                  }

                  @Override
                  public void onError(Throwable t) {
                    names.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    req.onNext(
        io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder()
            .setListServices("")
            .build());
    try {
      return names.get(10, TimeUnit.SECONDS);
    } finally {
      req.onCompleted();
    }
  }

  @Test
  void anOperatorAbortsAPendingSnapshotOnceAndAnUnknownOneIsNotFound() throws Exception {
    RawWorker w = welcomedSolo();
    long id = started();

    SnapshotManifest aborted =
        coordinator
            .admin()
            .abortSnapshot(AbortSnapshotRequest.newBuilder().setSnapshotId(id).build())
            .getManifest();
    assertThat(aborted.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(aborted.getReason()).isEqualTo("aborted by an operator");
    assertThat(w.await(m -> m.hasAbortSnapshot() && m.getAbortSnapshot().getSnapshotId() == id))
        .isNotNull();
    assertThat(
            coordinator
                .admin()
                .getCluster(GetClusterRequest.getDefaultInstance())
                .getPendingSnapshotsList())
        .isEmpty();

    assertStatus(
        () ->
            coordinator
                .admin()
                .abortSnapshot(AbortSnapshotRequest.newBuilder().setSnapshotId(id).build()),
        Status.Code.FAILED_PRECONDITION,
        "snapshot " + id + " is not pending: it is SNAPSHOT_STATUS_ABORTED");
    assertStatus(
        () ->
            coordinator
                .admin()
                .abortSnapshot(AbortSnapshotRequest.newBuilder().setSnapshotId(99).build()),
        Status.Code.NOT_FOUND,
        "no snapshot 99");
    assertStatus(
        () -> coordinator.admin().abortSnapshot(AbortSnapshotRequest.getDefaultInstance()),
        Status.Code.INVALID_ARGUMENT,
        "snapshot_id is required");
  }

  @Test
  void aSnapshotBeingCommittedCannotBeAbortedAndTheRefusalSaysSo() throws Exception {
    coordinator.close();
    java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
    coordinator =
        new InProcessCoordinator(
            InProcessCoordinator.config(dir).build(),
            store ->
                io.cutpoint.server.testing.InterceptedStore.around(
                    store,
                    (method, args) -> {
                      if (method.equals("commit")) {
                        reached.countDown();
                        open.await(30, TimeUnit.SECONDS);
                      }
                    }));
    try {
      RawWorker w = welcomedSolo();
      long id = started();
      var unused =
          RawWorker.send(
              coordinator.async(),
              RawWorker.upload(RawWorker.meta(id, "solo"), new byte[1], 1, List.of()));
      assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();

      assertStatus(
          () ->
              coordinator
                  .admin()
                  .abortSnapshot(AbortSnapshotRequest.newBuilder().setSnapshotId(id).build()),
          Status.Code.FAILED_PRECONDITION,
          "snapshot " + id + " is being committed: it can no longer be aborted");
    } finally {
      open.countDown();
    }
  }

  @Test
  void aPausedScheduleShowsInTheClusterViewAndIsTheReasonPeriodicSnapshotsAreBlocked()
      throws Exception {
    RawWorker w = welcomedSolo();
    ScheduleView paused =
        coordinator
            .admin()
            .setSchedule(SetScheduleRequest.newBuilder().setPaused(true).build())
            .getSchedule();
    assertThat(paused.getPaused()).isTrue();
    coordinator.server.context().schedule().attempt().join();

    ClusterView c = coordinator.admin().getCluster(GetClusterRequest.getDefaultInstance());
    assertThat(c.getSchedule().getPaused()).isTrue();
    assertThat(c.getSnapshotsBlocked().getReason())
        .isEqualTo(SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_PAUSED);
    assertThat(c.getPendingSnapshotsList()).isEmpty();
    assertThat(
            coordinator
                .registry
                .get("cutpoint.snapshots.blocked")
                .tag("reason", "paused")
                .gauge()
                .value())
        .isEqualTo(1);

    coordinator.admin().setSchedule(SetScheduleRequest.newBuilder().setPaused(false).build());
    coordinator.server.context().schedule().attempt().join();
    c = coordinator.admin().getCluster(GetClusterRequest.getDefaultInstance());
    assertThat(c.getSchedule().getPaused()).isFalse();
    assertThat(c.hasSnapshotsBlocked()).isFalse();
    assertThat(c.getPendingSnapshotsCount()).isEqualTo(1);
    assertThat(
            coordinator
                .registry
                .get("cutpoint.snapshots.blocked")
                .tag("reason", "paused")
                .gauge()
                .value())
        .isZero();
  }

  @Test
  void onlyALostWorkerIsRemovedAndBadIdsAreRefused() throws Exception {
    RawWorker w = new RawWorker(coordinator.async(), "solo").join(List.of(), List.of());
    w.await(CoordinatorMessage::hasWelcome);
    assertStatus(
        () ->
            coordinator
                .admin()
                .removeWorker(RemoveWorkerRequest.newBuilder().setWorkerId("solo").build()),
        Status.Code.FAILED_PRECONDITION,
        "worker solo has a live session");
    assertStatus(
        () ->
            coordinator
                .admin()
                .removeWorker(RemoveWorkerRequest.newBuilder().setWorkerId("nobody").build()),
        Status.Code.NOT_FOUND,
        "no worker nobody");
    assertStatus(
        () ->
            coordinator
                .admin()
                .removeWorker(RemoveWorkerRequest.newBuilder().setWorkerId("a b").build()),
        Status.Code.INVALID_ARGUMENT,
        "not a valid worker id");
    w.close();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> !coordinator.server.context().membership().isLive("solo"));

    coordinator.admin().removeWorker(RemoveWorkerRequest.newBuilder().setWorkerId("solo").build());
    ClusterView c = coordinator.admin().getCluster(GetClusterRequest.getDefaultInstance());
    assertThat(c.getWorkersList()).isEmpty();
    assertThat(coordinator.registry.get("cutpoint.workers").tag("state", "lost").gauge().value())
        .isZero();
  }

  @Test
  void aSnapshotCannotStartWithoutWorkers() {
    assertStatus(
        () -> coordinator.admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()),
        Status.Code.FAILED_PRECONDITION,
        "no workers");
  }

  /** A worker "solo" with no channels, joined and welcomed; closed after the test. */
  private RawWorker welcomedSolo() throws InterruptedException {
    RawWorker w = new RawWorker(coordinator.async(), "solo").join(List.of(), List.of());
    workers.add(w);
    w.await(CoordinatorMessage::hasWelcome);
    return w;
  }

  /** Triggers a snapshot without waiting; its id. */
  private long started() {
    return coordinator
        .admin()
        .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
        .getSnapshotId();
  }

  /** Uploads {@code w}'s piece of the next snapshot it is told to start, on its own thread. */
  private Thread uploadNext(RawWorker w) {
    Thread uploader =
        new Thread(
            () -> {
              try {
                long id =
                    w.await(CoordinatorMessage::hasStartSnapshot)
                        .getStartSnapshot()
                        .getSnapshotId();
                RawWorker.send(
                    coordinator.async(),
                    RawWorker.upload(RawWorker.meta(id, "solo"), new byte[5], 2, List.of()));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    uploader.start();
    return uploader;
  }

  @Test
  void triggerWithWaitAnswersTheFinalManifest() throws Exception {
    RawWorker w = welcomedSolo();
    Thread uploader = uploadNext(w);
    SnapshotManifest m =
        coordinator
            .admin()
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    uploader.join(10_000);
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(m.getTotalStateBytes()).isEqualTo(5);

    // wait_timeout_ms is a uint32: its largest value is a long wait, not a negative one
    uploader = uploadNext(w);
    SnapshotManifest longWait =
        coordinator
            .admin()
            .triggerSnapshot(
                TriggerSnapshotRequest.newBuilder().setWait(true).setWaitTimeoutMs(-1).build())
            .getManifest();
    uploader.join(10_000);
    assertThat(longWait.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);

    // nobody uploads the next one: waiting gives up after wait_timeout_ms
    assertStatus(
        () ->
            coordinator
                .admin()
                .triggerSnapshot(
                    TriggerSnapshotRequest.newBuilder()
                        .setWait(true)
                        .setWaitTimeoutMs(200)
                        .build()),
        Status.Code.DEADLINE_EXCEEDED,
        "still pending");
  }

  @Test
  void badSnapshotIdsAnswerInvalidArgumentOrNotFound() {
    assertStatus(
        () -> coordinator.admin().getSnapshot(GetSnapshotRequest.getDefaultInstance()),
        Status.Code.INVALID_ARGUMENT,
        "snapshot_id");
    assertStatus(
        () ->
            coordinator
                .admin()
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(42).build()),
        Status.Code.NOT_FOUND,
        "42");
    assertStatus(
        () ->
            coordinator
                .admin()
                .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(42).build()),
        Status.Code.NOT_FOUND,
        "42");
    assertStatus(
        () ->
            coordinator
                .admin()
                .pinSnapshot(PinSnapshotRequest.newBuilder().setSnapshotId(0).build()),
        Status.Code.INVALID_ARGUMENT,
        "snapshot_id");
    assertStatus(
        () -> coordinator.admin().analyze(AnalyzeRequest.newBuilder().setSnapshotId(42).build()),
        Status.Code.NOT_FOUND,
        "42");
    // a uint64 of 2^63 or more: out of range, not "required"
    assertStatus(
        () ->
            coordinator
                .admin()
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(-1).build()),
        Status.Code.INVALID_ARGUMENT,
        "snapshot_id 18446744073709551615 is out of range");
    assertStatus(
        () ->
            coordinator.admin().getCluster(GetClusterRequest.newBuilder().setPageSize(-1).build()),
        Status.Code.INVALID_ARGUMENT,
        "page_size must be at most");
  }

  @Test
  void listingValidatesItsFiltersAndPagesNewestFirst() throws Exception {
    assertStatus(
        () ->
            coordinator
                .admin()
                .listSnapshots(ListSnapshotsRequest.newBuilder().setPageSize(5000).build()),
        Status.Code.INVALID_ARGUMENT,
        "page_size");
    assertStatus(
        () ->
            coordinator
                .admin()
                .listSnapshots(ListSnapshotsRequest.newBuilder().setPageToken("zzz").build()),
        Status.Code.INVALID_ARGUMENT,
        "page_token");
    assertStatus(
        () ->
            coordinator
                .admin()
                .listSnapshots(
                    ListSnapshotsRequest.newBuilder()
                        .addStatuses(SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED)
                        .build()),
        Status.Code.INVALID_ARGUMENT,
        "statuses");

    long first = completeSnapshot();
    long second = started();
    RawWorker.send(
            coordinator.async(),
            RawWorker.upload(RawWorker.meta(second, "solo"), new byte[1], 1, List.of()))
        .get(10, TimeUnit.SECONDS);
    ListSnapshotsResponse page =
        coordinator.admin().listSnapshots(ListSnapshotsRequest.newBuilder().setPageSize(1).build());
    assertThat(page.getSnapshotsList())
        .extracting(SnapshotManifest::getSnapshotId)
        .containsExactly(second);
    ListSnapshotsResponse next =
        coordinator
            .admin()
            .listSnapshots(
                ListSnapshotsRequest.newBuilder()
                    .setPageSize(1)
                    .setPageToken(page.getNextPageToken())
                    .build());
    assertThat(next.getSnapshotsList())
        .extracting(SnapshotManifest::getSnapshotId)
        .containsExactly(first);
    assertThat(
            coordinator
                .admin()
                .listSnapshots(
                    ListSnapshotsRequest.newBuilder()
                        .addStatuses(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
                        .build())
                .getSnapshotsList())
        .isEmpty();
  }

  @Test
  void pinnedSnapshotsCannotBeDeletedUntilUnpinned() throws Exception {
    long id = completeSnapshot();
    assertThat(
            coordinator
                .admin()
                .pinSnapshot(
                    PinSnapshotRequest.newBuilder().setSnapshotId(id).setPinned(true).build())
                .getManifest()
                .getPinned())
        .isTrue();
    assertStatus(
        () ->
            coordinator
                .admin()
                .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(id).build()),
        Status.Code.FAILED_PRECONDITION,
        "pinned");
    assertThat(
            coordinator
                .admin()
                .listSnapshots(ListSnapshotsRequest.newBuilder().setPinnedOnly(true).build())
                .getSnapshotsCount())
        .isEqualTo(1);
    coordinator
        .admin()
        .pinSnapshot(PinSnapshotRequest.newBuilder().setSnapshotId(id).setPinned(false).build());
    coordinator
        .admin()
        .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(id).build());
    assertStatus(
        () ->
            coordinator
                .admin()
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build()),
        Status.Code.NOT_FOUND,
        "no snapshot");
  }

  @Test
  void channelStateRequestsAreValidated() throws Exception {
    long id = completeSnapshot();
    assertStatus(
        () ->
            coordinator
                .admin()
                .getChannelState(GetChannelStateRequest.newBuilder().setSnapshotId(id).build()),
        Status.Code.INVALID_ARGUMENT,
        "channel");
    assertStatus(
        () ->
            coordinator
                .admin()
                .getChannelState(
                    GetChannelStateRequest.newBuilder()
                        .setSnapshotId(id)
                        .setChannel(ChannelRef.newBuilder().setFrom("x").setTo("solo"))
                        .build()),
        Status.Code.NOT_FOUND,
        "no channel");
    assertStatus(
        () ->
            coordinator
                .admin()
                .getChannelState(
                    GetChannelStateRequest.newBuilder()
                        .setSnapshotId(id)
                        .setChannel(ChannelRef.newBuilder().setFrom("x").setTo("solo"))
                        .setPageSize(10001)
                        .build()),
        Status.Code.INVALID_ARGUMENT,
        "page_size");
  }

  @Test
  void analyzingASnapshotThatIsNotCompleteIsAFailedPrecondition() throws Exception {
    RawWorker w = welcomedSolo();
    long pending = started();
    assertStatus(
        () ->
            coordinator.admin().analyze(AnalyzeRequest.newBuilder().setSnapshotId(pending).build()),
        Status.Code.FAILED_PRECONDITION,
        "PENDING");
    assertStatus(
        () ->
            coordinator
                .admin()
                .deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(pending).build()),
        Status.Code.FAILED_PRECONDITION,
        "pending");
    RawWorker.send(
            coordinator.async(),
            RawWorker.upload(RawWorker.meta(pending, "solo"), new byte[1], 1, List.of()))
        .get(10, TimeUnit.SECONDS);
    assertThat(
            coordinator
                .admin()
                .analyze(AnalyzeRequest.newBuilder().setSnapshotId(pending).build())
                .getSummary()
                .getWorkers())
        .isEqualTo(1);
  }

  @Test
  void theClusterViewShowsWorkersChannelsInitiatorsAndPendingSnapshots() throws Exception {
    RawWorker a = new RawWorker(coordinator.async(), "a").join(List.of("b"), List.of());
    RawWorker b = new RawWorker(coordinator.async(), "b").join(List.of(), List.of("a"));
    workers.add(a);
    workers.add(b);
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    long id = started();
    var view = coordinator.admin().getCluster(GetClusterRequest.getDefaultInstance());
    assertThat(view.getWorkersCount()).isEqualTo(2);
    assertThat(view.getChannelsList())
        .singleElement()
        .satisfies(c -> assertThat(c.getFrom() + c.getTo()).isEqualTo("ab"));
    assertThat(view.getInitiatorsList()).containsExactly("a");
    assertThat(view.getPendingSnapshotsList()).containsExactly(id);
  }

  /**
   * Manifests name their whole topology: twelve of a 40-worker full mesh with long ids are more
   * than the 4 MiB a gRPC client takes by default. A page stops at about 1 MiB, and the pages still
   * list every snapshot once.
   */
  @Test
  void aPageOfLargeManifestsStaysSmallAndThePagesListEverySnapshot() throws Exception {
    coordinator.close();
    java.util.Set<Long> written = new java.util.TreeSet<>();
    try (io.cutpoint.storage.RocksSnapshotStore store =
        io.cutpoint.storage.RocksSnapshotStore.open(dir)) {
      io.cutpoint.api.v1.Topology.Builder mesh = io.cutpoint.api.v1.Topology.newBuilder();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        ids.add(String.format("worker-%03d-", i) + "x".repeat(100));
      }
      for (String id : ids) {
        mesh.addWorkers(
            io.cutpoint.api.v1.WorkerDecl.newBuilder()
                .setWorkerId(id)
                .setChannelAddress("127.0.0.1:1")
                .addAllOutgoing(ids.stream().filter(o -> !o.equals(id)).toList())
                .addAllIncoming(ids.stream().filter(o -> !o.equals(id)).toList()));
      }
      for (int i = 0; i < 12; i++) {
        long id = store.allocateSnapshotId();
        SnapshotManifest pending =
            SnapshotManifest.newBuilder()
                .setSnapshotId(id)
                .setEpoch(store.epoch())
                .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
                .setTopology(mesh)
                .build();
        store.createPending(pending);
        store.finish(pending.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED).build());
        written.add(id);
      }
    }
    coordinator = new InProcessCoordinator(InProcessCoordinator.config(dir).build());

    java.util.Set<Long> listed = new java.util.TreeSet<>();
    String token = "";
    int pages = 0;
    do {
      ListSnapshotsResponse page =
          coordinator
              .admin()
              .listSnapshots(ListSnapshotsRequest.newBuilder().setPageToken(token).build());
      assertThat(page.getSerializedSize()).isLessThan(2 << 20);
      page.getSnapshotsList().forEach(m -> assertThat(listed.add(m.getSnapshotId())).isTrue());
      token = page.getNextPageToken();
      pages++;
    } while (!token.isEmpty());
    assertThat(listed).isEqualTo(written);
    assertThat(pages).isGreaterThan(1);
  }
}
