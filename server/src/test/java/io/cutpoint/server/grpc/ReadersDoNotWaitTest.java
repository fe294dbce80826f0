package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.SetScheduleRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * While the store's synced commit of a snapshot is held, the coordinator still answers: readers
 * (cluster view, list, get) from the published views, and requests that change its state from the
 * loop, which never waits for the store.
 */
class ReadersDoNotWaitTest {

  @TempDir Path dir;
  private final CountDownLatch commitEntered = new CountDownLatch(1);
  private final CountDownLatch releaseCommit = new CountDownLatch(1);
  private CoordinatorServer server;
  private ManagedChannel channel;
  private RawWorker a;
  private RawWorker b;

  /** The store, with every commit held until the test releases it. */
  private SnapshotStore gated(SnapshotStore real) {
    return InterceptedStore.around(
        real,
        (method, args) -> {
          if (method.equals("commit")) {
            commitEntered.countDown();
            if (!releaseCommit.await(60, TimeUnit.SECONDS)) {
              throw new AssertionError("the commit was never released");
            }
          }
        });
  }

  @AfterEach
  void tearDown() throws Exception {
    releaseCommit.countDown();
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theCoordinatorAnswersWhileTheStoreHoldsACommit() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server =
        CoordinatorServer.start(
            InProcessCoordinator.config(dir)
                .heartbeatTimeout(java.time.Duration.ofMinutes(10))
                .build(),
            new SimpleMeterRegistry(),
            InProcessServerBuilder.forName(name),
            gated(RocksSnapshotStore.open(dir)));
    channel = InProcessChannelBuilder.forName(name).build();
    var coordinator = CoordinatorGrpc.newStub(channel);
    a = new RawWorker(coordinator, "a").join(List.of("b"), List.of("b"));
    b = new RawWorker(coordinator, "b").join(List.of("a"), List.of("a"));
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    AdminGrpc.AdminBlockingStub admin = AdminGrpc.newBlockingStub(channel);
    long id = admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();

    RawWorker.send(
            coordinator,
            RawWorker.upload(
                meta(id, "a").addSent(counter("b", 0)).addReceived(counter("b", 0)),
                "a".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                4,
                List.of(ChannelRecording.newBuilder().setFrom("b").build())))
        .get(20, TimeUnit.SECONDS);
    CompletableFuture<UploadResult> last =
        RawWorker.send(
            coordinator,
            RawWorker.upload(
                meta(id, "b").addSent(counter("a", 0)).addReceived(counter("a", 0)),
                "b".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                4,
                List.of(ChannelRecording.newBuilder().setFrom("a").setFirstMarker(true).build())));
    assertThat(commitEntered.await(20, TimeUnit.SECONDS))
        .as("the commit reached the store")
        .isTrue();

    AdminGrpc.AdminBlockingStub quick = admin.withDeadlineAfter(5, TimeUnit.SECONDS);
    ClusterView cluster = quick.getCluster(GetClusterRequest.getDefaultInstance());
    assertThat(cluster.getPendingSnapshotsList()).containsExactly(id);
    assertThat(quick.listSnapshots(ListSnapshotsRequest.getDefaultInstance()).getSnapshotsList())
        .extracting(m -> m.getSnapshotId())
        .contains(id);
    assertThat(
            quick
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                .getManifest()
                .getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    // the loop itself is free: a request it must apply is answered too
    assertThat(
            admin
                .withDeadlineAfter(5, TimeUnit.SECONDS)
                .setSchedule(SetScheduleRequest.newBuilder().setPaused(true).build())
                .getSchedule()
                .getPaused())
        .isTrue();
    assertThat(last).isNotDone(); // the last piece is answered once the snapshot is committed

    releaseCommit.countDown();
    last.get(20, TimeUnit.SECONDS);
    assertThat(
            admin
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                .getManifest()
                .getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
  }
}
