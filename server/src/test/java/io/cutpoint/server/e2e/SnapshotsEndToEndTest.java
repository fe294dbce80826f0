package io.cutpoint.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.events.EventHub;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A coordinator on the in-process transport with real workers of the SDK. */
class SnapshotsEndToEndTest {

  @TempDir Path dir;
  private final String name = InProcessServerBuilder.generateName();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<Event> events = new CopyOnWriteArrayList<>();
  private CoordinatorServer server;
  private ManagedChannel channel;
  private LiveWorkers workers;

  private CoordinatorServer startCoordinator(
      CoordinatorConfig config, UnaryOperator<SnapshotStore> wrap) {
    server =
        CoordinatorServer.start(
            config,
            registry,
            InProcessServerBuilder.forName(name),
            wrap.apply(RocksSnapshotStore.open(dir)));
    server
        .context()
        .events()
        .subscribe(
            new EventHub.EventSink() {
              @Override
              public boolean offer(Event e) {
                events.add(e);
                return true;
              }

              @Override
              public void overflowed() {}
            });
    return server;
  }

  private void startWorkers(String... ids) {
    channel = InProcessChannelBuilder.forName(name).build();
    workers = new LiveWorkers(channel, ids);
  }

  private AdminGrpc.AdminBlockingStub admin() {
    return AdminGrpc.newBlockingStub(channel);
  }

  private List<SnapshotManifest> list(SnapshotStatus status) {
    return admin()
        .listSnapshots(ListSnapshotsRequest.newBuilder().addStatuses(status).build())
        .getSnapshotsList();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (workers != null) {
      workers.close();
    }
    if (server != null) {
      server.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private CoordinatorConfig.Builder config() {
    return InProcessCoordinator.config(dir)
        .snapshotTimeout(Duration.ofSeconds(10))
        .retainCompleteSnapshots(100);
  }

  @Test
  void periodicSnapshotsCompleteAndEveryCutConservesTheMoney() {
    startCoordinator(config().snapshotInterval(Duration.ofMillis(150)).build(), s -> s);
    startWorkers("w1", "w2", "w3");
    workers.traffic(true);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).size() >= 5);
    workers.traffic(false);

    List<SnapshotManifest> complete = list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    SnapshotStore store = server.context().store();
    long inFlight = 0;
    for (SnapshotManifest m : complete) {
      store.verifyIntegrity(m.getSnapshotId());
      SnapshotManifest full = store.manifest(m.getSnapshotId()).orElseThrow();
      assertThat(LiveWorkers.moneyIn(store, full))
          .as("money in snapshot %d", m.getSnapshotId())
          .isEqualTo(workers.total());
      inFlight += full.getInFlightMessages();
    }
    System.out.printf(
        "%d complete snapshots, %d messages recorded in flight%n", complete.size(), inFlight);
    double completed =
        registry.get("cutpoint.snapshots").tag("outcome", "complete").counter().count();
    assertThat(completed).isGreaterThanOrEqualTo(complete.size());
    assertThat(registry.get("cutpoint.snapshot.markers").counter().count())
        .isEqualTo(completed * 6);
    assertThat(registry.get("cutpoint.snapshot.latest.age").gauge().value()).isNotNaN();
    assertThat(
            registry.get("cutpoint.snapshot.duration").tag("outcome", "complete").timer().count())
        .isEqualTo((long) completed);
    assertThat(registry.get("cutpoint.workers").tag("state", "running").gauge().value())
        .isEqualTo(3.0);
    assertThat(events).anyMatch(e -> e.getType() == EventType.EVENT_TYPE_SNAPSHOT_COMPLETED);
  }

  @Test
  void aWorkerThatCannotRecordMakesTheSnapshotTimeOutAndTheNextOneSucceeds() throws Exception {
    startCoordinator(config().snapshotTimeout(Duration.ofMillis(800)).build(), s -> s);
    startWorkers("w1", "w2");
    CountDownLatch release = new CountDownLatch(1);
    workers
        .members
        .get("w2")
        .worker()
        .execute(
            () -> {
              try {
                release.await(30, TimeUnit.SECONDS); // w2's event loop is stuck
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    SnapshotManifest aborted =
        admin()
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    assertThat(aborted.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(aborted.getReason()).contains("timed out");
    release.countDown();

    SnapshotManifest next =
        admin()
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    assertThat(next.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(registry.get("cutpoint.snapshots").tag("outcome", "aborted").counter().count())
        .isEqualTo(1.0);
  }

  @Test
  void aLostWorkerAbortsTheSnapshotInFlight() throws Exception {
    startCoordinator(config().build(), s -> s);
    startWorkers("w1", "w2", "w3");
    CountDownLatch release = new CountDownLatch(1);
    workers
        .members
        .get("w3")
        .worker()
        .execute(
            () -> {
              try {
                release.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    long id = admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
    // w3 cannot record (its event loop is stuck) and its session ends
    LiveWorkers.Member w3 = workers.members.remove("w3");
    w3.session().close();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                server.context().store().manifest(id).orElseThrow().getStatus()
                    != SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    release.countDown();
    w3.worker().close();
    SnapshotManifest m = server.context().store().manifest(id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(m.getReason()).contains("worker w3 was lost");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                admin().getCluster(GetClusterRequest.getDefaultInstance()).getWorkersList().stream()
                    .anyMatch(w -> w.getState() == WorkerState.WORKER_STATE_LOST));
    assertThatThrownBy(() -> admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription()).contains("w3");
            });
  }

  @Test
  void aStateChunkCorruptedInTransitIsRefusedAndNeverCommitted() {
    AtomicBoolean corruptOnce = new AtomicBoolean(true);
    server =
        CoordinatorServer.start(
            config().build(),
            registry,
            InProcessServerBuilder.forName(name).intercept(new ChunkCorrupter("w2", corruptOnce)),
            RocksSnapshotStore.open(dir));
    startWorkers("w1", "w2");
    workers.traffic(true);
    SnapshotManifest first =
        admin()
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    assertThat(corruptOnce).isFalse();
    assertThat(first.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(first.getReason()).contains("w2");

    SnapshotManifest next =
        admin()
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    workers.traffic(false);
    assertThat(next.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    server.context().store().verifyIntegrity(next.getSnapshotId());
    assertThat(LiveWorkers.moneyIn(server.context().store(), next)).isEqualTo(workers.total());
  }

  @Test
  void aPieceDamagedOnDiskIsReportedAsDataLoss() {
    startCoordinator(config().build(), s -> DamagedStore.around(s, "w2"));
    startWorkers("w1", "w2");
    workers.traffic(true);
    SnapshotManifest m =
        admin()
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    workers.traffic(false);
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);

    SnapshotStore store = server.context().store();
    assertThatThrownBy(() -> store.verifyIntegrity(m.getSnapshotId()))
        .isInstanceOf(CorruptionException.class);
    // as w2 itself would ask: with its live session's secret
    String secret = server.context().sessions().get("w2").orElseThrow().secret();
    io.grpc.Metadata md = new io.grpc.Metadata();
    md.put(io.cutpoint.server.security.WorkerIdentity.SESSION_SECRET, secret);
    assertThatThrownBy(
            () ->
                CoordinatorGrpc.newBlockingStub(channel)
                    .withInterceptors(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(md))
                    .downloadSnapshot(
                        DownloadRequest.newBuilder()
                            .setSnapshotId(m.getSnapshotId())
                            .setWorkerId("w2")
                            .build())
                    .forEachRemaining(p -> {}))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DATA_LOSS));
  }

  @Test
  void retentionKeepsTheNewestCompleteSnapshotsAndReportsWhatItDeletes() {
    startCoordinator(config().retainCompleteSnapshots(2).build(), s -> s);
    startWorkers("w1", "w2");
    List<Long> ids = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      SnapshotManifest m =
          admin()
              .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
              .getManifest();
      assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      ids.add(m.getSnapshotId());
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))
                    .extracting(SnapshotManifest::getSnapshotId)
                    .containsExactly(ids.get(4), ids.get(3)));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(events)
                    .filteredOn(e -> e.getType() == EventType.EVENT_TYPE_SNAPSHOT_DELETED)
                    .extracting(Event::getSnapshotId)
                    .containsExactlyInAnyOrder(ids.get(0), ids.get(1), ids.get(2)));
  }

  @Test
  void aRestartOnTheSameDirectoryKeepsCompleteSnapshotsAndWorkersComeBack() {
    CoordinatorConfig config = config().snapshotInterval(Duration.ofMillis(200)).build();
    startCoordinator(config, s -> s);
    startWorkers("w1", "w2", "w3");
    workers.traffic(true);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).size() >= 2);
    server.close();
    long lastBefore;
    try (SnapshotStore peek = RocksSnapshotStore.open(dir)) {
      lastBefore = peek.list(Set.of()).get(0).getSnapshotId();
    }

    startCoordinator(config, s -> s);
    SnapshotStore store = server.context().store();
    List<SnapshotManifest> before = store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE));
    assertThat(before).hasSizeGreaterThanOrEqualTo(2);
    assertThat(store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_PENDING)))
        .allMatch(m -> m.getSnapshotId() > lastBefore, "started after the restart");
    for (SnapshotManifest m : before) {
      store.verifyIntegrity(m.getSnapshotId());
      assertThat(LiveWorkers.moneyIn(store, m)).isEqualTo(workers.total());
    }
    long newest = before.get(0).getSnapshotId();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)).get(0).getSnapshotId()
                    > newest);
    assertThat(admin().getCluster(GetClusterRequest.getDefaultInstance()).getWorkersList())
        .allMatch(w -> w.getState() == WorkerState.WORKER_STATE_RUNNING)
        .hasSize(3);
  }
}
