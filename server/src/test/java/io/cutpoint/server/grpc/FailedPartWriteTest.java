package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
  private RawPair pair;

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
    if (pair != null) {
      pair.close();
    }
  }

  @Test
  void aPartTheStoreCannotWriteEndsTheSnapshotAbortedNeverComplete() throws Exception {
    pair =
        new RawPair(
            InProcessCoordinator.pooled(
                InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
                FailedPartWriteTest::failingChunksOfA));
    var coordinator = pair.coordinator.async();
    RawWorker.send(coordinator, pair.pieceOfA("state of a".getBytes(StandardCharsets.UTF_8)))
        .handle((r, e) -> null)
        .get(20, TimeUnit.SECONDS);
    RawWorker.send(coordinator, pair.pieceOfB("b".getBytes(StandardCharsets.UTF_8), 2, 3))
        .handle((r, e) -> null)
        .get(20, TimeUnit.SECONDS);

    var admin = pair.coordinator.admin().withDeadlineAfter(20, TimeUnit.SECONDS);
    GetSnapshotRequest get = GetSnapshotRequest.newBuilder().setSnapshotId(pair.snapshotId).build();
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
