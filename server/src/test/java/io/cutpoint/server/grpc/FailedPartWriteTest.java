package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upload's parts are written behind its acknowledgement: when the store fails to write one, the
 * piece was taken all the same, and the snapshot must end ABORTED (the store refuses the commit),
 * never COMPLETE with a piece missing.
 */
class FailedPartWriteTest {

  @TempDir Path dir;
  private CoordinatorServer server;
  private ManagedChannel channel;
  private RawWorker a;
  private RawWorker b;

  /** The store, failing every state chunk of worker a. */
  private static SnapshotStore failingChunksOfA(SnapshotStore real) {
    return InterceptedStore.around(
        real,
        (method, args) -> {
          if (method.startsWith("put") && method.endsWith("StateChunk") && "a".equals(args[1])) {
            throw new StoreException("store test: no space left on device");
          }
        });
  }

  @AfterEach
  void tearDown() throws Exception {
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
  void aPartTheStoreCannotWriteEndsTheSnapshotAbortedNeverComplete() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server =
        CoordinatorServer.start(
            InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
            new SimpleMeterRegistry(),
            InProcessServerBuilder.forName(name),
            failingChunksOfA(RocksSnapshotStore.open(dir)));
    channel = InProcessChannelBuilder.forName(name).build();
    var coordinator = CoordinatorGrpc.newStub(channel);
    a = new RawWorker(coordinator, "a").join(List.of("b"), List.of("b"));
    b = new RawWorker(coordinator, "b").join(List.of("a"), List.of("a"));
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    long id = admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();

    RawWorker.send(
            coordinator,
            RawWorker.upload(
                meta(id, "a").addSent(counter("b", 0)).addReceived(counter("b", 0)),
                "state of a".getBytes(StandardCharsets.UTF_8),
                4,
                List.of(ChannelRecording.newBuilder().setFrom("b").build())))
        .handle((r, e) -> null)
        .get(20, TimeUnit.SECONDS);
    RawWorker.send(
            coordinator,
            RawWorker.upload(
                meta(id, "b").addSent(counter("a", 0)).addReceived(counter("a", 0)),
                "b".getBytes(StandardCharsets.UTF_8),
                4,
                List.of(ChannelRecording.newBuilder().setFrom("a").setFirstMarker(true).build())))
        .handle((r, e) -> null)
        .get(20, TimeUnit.SECONDS);

    GetSnapshotRequest get = GetSnapshotRequest.newBuilder().setSnapshotId(id).build();
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                admin.getSnapshot(get).getManifest().getStatus()
                    != SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    SnapshotManifest m = admin.getSnapshot(get).getManifest();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(m.getReason())
        .startsWith("commit failed: could not store state chunk 0 of worker a")
        .as("the reason names the store's own error, not only the missing metadata")
        .contains("no space left on device");
  }
}
