package io.cutpoint.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A coordinator on loopback TCP (Netty, RocksDB in a temp dir) with real workers. */
class LoopbackEndToEndTest {

  @TempDir Path dir;
  private CoordinatorServer server;
  private ManagedChannel channel;
  private LiveWorkers workers;
  private Process child;

  static CoordinatorConfig config(Path dir, int port, Duration interval) {
    return CoordinatorConfig.builder()
        .port(port)
        .dataDir(dir)
        .snapshotInterval(interval)
        .snapshotTimeout(Duration.ofSeconds(10))
        .heartbeatInterval(Duration.ofMillis(100))
        .heartbeatTimeout(Duration.ofSeconds(3))
        .retainCompleteSnapshots(1000)
        .build();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (workers != null) {
      workers.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
    if (child != null && child.isAlive()) {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private List<SnapshotManifest> list(SnapshotStatus status) {
    return AdminGrpc.newBlockingStub(channel)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .listSnapshots(ListSnapshotsRequest.newBuilder().addStatuses(status).build())
        .getSnapshotsList();
  }

  /** The port the child coordinator bound (it binds port 0 and prints {@code READY <port>}). */
  private static int reportedPort(Path log) throws IOException {
    for (String line : Files.readAllLines(log)) {
      if (line.startsWith("READY ")) {
        return Integer.parseInt(line.substring("READY ".length()).trim());
      }
    }
    return 0;
  }

  @Test
  void overLoopbackPeriodicSnapshotsCompleteAndConserveTheMoney() throws Exception {
    server =
        CoordinatorServer.start(config(dir, 0, Duration.ofMillis(200)), new SimpleMeterRegistry());
    assertThat(server.port()).isPositive();
    channel = NettyChannelBuilder.forTarget(server.target()).usePlaintext().build();
    assertThat(
            HealthGrpc.newBlockingStub(channel)
                .check(HealthCheckRequest.getDefaultInstance())
                .getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    workers = new LiveWorkers(channel, "w1", "w2", "w3");
    workers.traffic(true);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).size() >= 3);
    workers.traffic(false);
    SnapshotStore store = server.context().store();
    for (SnapshotManifest m : list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)) {
      SnapshotManifest full = store.manifest(m.getSnapshotId()).orElseThrow();
      assertThat(LiveWorkers.moneyIn(store, full)).isEqualTo(workers.total());
      assertThat(full.getTimings().getTotalMicros()).isPositive();
    }
    server.close();
    server.close(); // idempotent
  }

  @Test
  void aCoordinatorKilledMidSnapshotRestartsWithEveryCompleteSnapshotIntactAndWorkersReconnect()
      throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Path log = dir.resolve("coordinator.log");
    child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // killed with -9 below, the child runs no exit hook: what it extracts into its
                // temporary directory (RocksDB's native library) must be in the test's
                "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("child.tmp")),
                "-cp",
                System.getProperty("java.class.path"),
                CoordinatorMain.class.getName(),
                data.toString(),
                "0",
                "50")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    await().atMost(Duration.ofSeconds(60)).until(() -> !child.isAlive() || reportedPort(log) > 0);
    int port = reportedPort(log);
    assertThat(port)
        .as("port reported by the child; its output: %s", Files.readString(log))
        .isPositive();
    channel = NettyChannelBuilder.forTarget("localhost:" + port).usePlaintext().build();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                HealthGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(1, TimeUnit.SECONDS)
                        .check(HealthCheckRequest.getDefaultInstance())
                        .getStatus()
                    == HealthCheckResponse.ServingStatus.SERVING);
    workers = new LiveWorkers(channel, "w1", "w2", "w3");
    workers.traffic(true);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).size() >= 3);
    // Kill it while a snapshot is in flight: w3's event thread is held, so a snapshot that has
    // started cannot complete (it would time out after 10 s) until the kill.
    CountDownLatch held = new CountDownLatch(1);
    workers
        .members
        .get("w3")
        .worker()
        .execute(
            () -> {
              try {
                held.await(60, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  AdminGrpc.newBlockingStub(channel)
                          .getCluster(GetClusterRequest.getDefaultInstance())
                          .getPendingSnapshotsCount()
                      > 0);
      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      held.countDown();
    }
    workers.traffic(false);

    long newestBefore;
    int completeBefore;
    try (SnapshotStore store = RocksSnapshotStore.open(data)) {
      assertThat(store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_PENDING)))
          .as("nothing half-written")
          .isEmpty();
      List<SnapshotManifest> complete = store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE));
      completeBefore = complete.size();
      assertThat(completeBefore).isGreaterThanOrEqualTo(3);
      for (SnapshotManifest m : complete) {
        store.verifyIntegrity(m.getSnapshotId());
        assertThat(LiveWorkers.moneyIn(store, m))
            .as("money in snapshot %d", m.getSnapshotId())
            .isEqualTo(workers.total());
      }
      SnapshotManifest newest = store.list(Set.of()).get(0);
      newestBefore = newest.getSnapshotId();
      // The kill landed mid-snapshot: the newest snapshot was pending, and reopening the store
      // aborted it.
      assertThat(newest.getStatus())
          .as("newest snapshot %d", newestBefore)
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
      assertThat(newest.getReason()).isEqualTo("coordinator restarted");
      assertThat(newestBefore).isGreaterThan(complete.get(0).getSnapshotId());
    }

    server =
        CoordinatorServer.start(
            config(data, port, Duration.ofMillis(100)), new SimpleMeterRegistry());
    workers.traffic(true);
    // the admin channel saw the old coordinator die and may still be backing off: retry through it
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsInstanceOf(StatusRuntimeException.class)
        .until(
            () ->
                AdminGrpc.newBlockingStub(channel)
                        .getCluster(GetClusterRequest.getDefaultInstance())
                        .getWorkersList()
                        .stream()
                        .filter(w -> w.getState() == WorkerState.WORKER_STATE_RUNNING)
                        .count()
                    == 3);
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsInstanceOf(StatusRuntimeException.class)
        .until(
            () ->
                list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).stream()
                    .anyMatch(m -> m.getSnapshotId() > newestBefore));
    workers.traffic(false);
    assertThat(list(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).size()).isGreaterThan(completeBefore);
  }
}
