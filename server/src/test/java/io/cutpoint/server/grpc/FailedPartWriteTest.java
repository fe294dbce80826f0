package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  /**
   * The snapshot ends (an operator's abort) while a worker's upload is under way: its later parts
   * reach the store after the end and are refused there. That is no failed write to report with a
   * commit, and none is kept: one kept per such snapshot stayed for good.
   */
  @Test
  void partsThatReachTheStoreAfterTheirSnapshotEndedKeepNoFailure() throws Exception {
    java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
    pair =
        new RawPair(
            InProcessCoordinator.pooled(
                InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
                real ->
                    InterceptedStore.around(
                        real,
                        (method, args) -> {
                          if (method.startsWith("put")
                              && method.endsWith("StateChunk")
                              && reached.getCount() > 0) {
                            reached.countDown(); // the header was admitted: hold the store
                            try {
                              open.await(20, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                              Thread.currentThread().interrupt();
                            }
                          }
                        })));
    var parts = pair.pieceOfA("state of a".getBytes(StandardCharsets.UTF_8));
    var result = new java.util.concurrent.CompletableFuture<io.cutpoint.api.v1.UploadResult>();
    var up =
        RawWorker.withSecret(pair.coordinator.async(), pair.a.secret())
            .uploadSnapshot(
                new io.grpc.stub.StreamObserver<>() {
                  @Override
                  public void onNext(io.cutpoint.api.v1.UploadResult r) {
                    result.complete(r);
                  }

                  @Override
                  public void onError(Throwable t) {
                    result.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    up.onNext(parts.get(0)); // the header
    up.onNext(parts.get(1)); // the first chunk, whose write holds the store
    assertThat(reached.await(20, TimeUnit.SECONDS)).isTrue();
    // the abort's answer waits for the store; what readers see of the snapshot does not
    var aborted =
        java.util.concurrent.CompletableFuture.runAsync(
            () ->
                pair.coordinator
                    .admin()
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .abortSnapshot(
                        io.cutpoint.api.v1.AbortSnapshotRequest.newBuilder()
                            .setSnapshotId(pair.snapshotId)
                            .build()));
    GetSnapshotRequest get = GetSnapshotRequest.newBuilder().setSnapshotId(pair.snapshotId).build();
    Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                pair.coordinator
                        .admin()
                        .withDeadlineAfter(5, TimeUnit.SECONDS)
                        .getSnapshot(get)
                        .getManifest()
                        .getStatus()
                    == SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    parts.subList(2, parts.size()).forEach(up::onNext); // written after the end, behind it
    up.onCompleted();
    open.countDown();

    aborted.get(20, TimeUnit.SECONDS);
    assertThatThrownBy(() -> result.get(20, TimeUnit.SECONDS))
        .hasCauseInstanceOf(io.grpc.StatusRuntimeException.class)
        .hasMessageContaining("FAILED_PRECONDITION");
    var io = pair.coordinator.server.context().storeIo();
    var kept = new java.util.concurrent.CompletableFuture<Integer>();
    io.writePiece(store -> kept.complete(io.failedWritesKept())); // after every write before it
    assertThat(kept.get(20, TimeUnit.SECONDS)).isZero();
  }
}
