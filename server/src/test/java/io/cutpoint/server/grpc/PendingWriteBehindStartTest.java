package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ChunkAnswer;
import io.cutpoint.api.v1.ChunkQuery;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.NotPendingException;
import io.cutpoint.storage.SnapshotStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot's start commands go out before its pending manifest is written, and an upload that
 * arrives meanwhile hands its parts to the store executor behind it: no piece reaches the store
 * ahead of its snapshot, and the snapshot completes. A chunk query that arrives meanwhile is
 * answered behind it too.
 */
class PendingWriteBehindStartTest {

  @TempDir Path dir;
  private final CountDownLatch pendingEntered = new CountDownLatch(1);
  private final CountDownLatch releasePending = new CountDownLatch(1);
  private final java.util.concurrent.atomic.AtomicBoolean notYetOpen =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** The store's writes, in the order they reach it. */
  private final List<String> writes = java.util.Collections.synchronizedList(new ArrayList<>());

  private RawPair pair;

  /** The store, with every pending manifest's write held until the test releases it. */
  private SnapshotStore gated(SnapshotStore real) {
    return InterceptedStore.around(
        real,
        (method, args) -> {
          if (method.startsWith("put") || method.equals("commit")) {
            writes.add(method);
          }
          if (method.equals("holdChunks") && notYetOpen.getAndSet(false)) {
            // as the object store answers between its manifest's write and the snapshot's
            // opening: the manifest says PENDING, the pieces are not taken yet
            throw new NotPendingException(
                (Long) args[0], SnapshotStatus.SNAPSHOT_STATUS_PENDING, "hold content chunks");
          }
          if (method.equals("createPending")) {
            pendingEntered.countDown();
            if (!releasePending.await(60, TimeUnit.SECONDS)) {
              throw new AssertionError("the pending write was never released");
            }
            writes.add("createPending");
          }
        });
  }

  @AfterEach
  void tearDown() throws Exception {
    releasePending.countDown();
    if (pair != null) {
      pair.close();
    }
  }

  /** The gated coordinator, with a and b joined and no snapshot started. */
  private void start() throws Exception {
    pair =
        RawPair.joined(
            InProcessCoordinator.pooled(
                InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
                this::gated));
  }

  @Test
  void startCommandsGoOutBeforeThePendingWriteAndAnUploadsPartsAreWrittenBehindIt()
      throws Exception {
    start();
    var coordinator = pair.coordinator.async();
    AdminGrpc.AdminBlockingStub admin =
        pair.coordinator.admin().withDeadlineAfter(10, TimeUnit.SECONDS);

    var trigger =
        AdminGrpc.newFutureStub(pair.coordinator.channel)
            .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance());

    assertThat(pendingEntered.await(10, TimeUnit.SECONDS)).isTrue();
    // told while the store still holds the pending write; the admin is answered after it
    long id = pair.a.await(CoordinatorMessage::hasStartSnapshot).getStartSnapshot().getSnapshotId();
    assertThat(trigger.isDone()).isFalse();
    CompletableFuture<UploadResult> first =
        RawWorker.send(coordinator, RawPair.pieceOfA(id, "a".getBytes(StandardCharsets.UTF_8)));
    Awaitility.await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(writes::isEmpty); // the upload's parts wait behind the pending manifest

    releasePending.countDown();
    assertThat(trigger.get(20, TimeUnit.SECONDS).getSnapshotId()).isEqualTo(id);
    first.get(20, TimeUnit.SECONDS);
    RawWorker.send(coordinator, RawPair.pieceOfB(id, "b".getBytes(StandardCharsets.UTF_8), 2, 3))
        .get(20, TimeUnit.SECONDS);
    assertThat(
            admin
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                .getManifest()
                .getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(writes).first().isEqualTo("createPending");
    assertThat(writes).last().isEqualTo("commit");
    assertThat(writes).contains("putCheckedStateChunk", "putWorkerMeta");
  }

  /**
   * A FindChunks query is answered on its own thread once the store holds the snapshot; one that
   * comes before, while the pending write is held, is answered behind it, not refused as NOT_FOUND.
   */
  @Test
  void aChunkQueryBeforeThePendingWriteIsAnsweredBehindIt() throws Exception {
    start();
    var trigger =
        AdminGrpc.newFutureStub(pair.coordinator.channel)
            .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance());
    assertThat(pendingEntered.await(10, TimeUnit.SECONDS)).isTrue();
    long id = pair.a.await(CoordinatorMessage::hasStartSnapshot).getStartSnapshot().getSnapshotId();
    ChunkQuery query =
        ChunkQuery.newBuilder()
            .setSnapshotId(id)
            .setWorkerId("a")
            .addSha256(ByteString.copyFrom(new byte[32]))
            .addSha256(ByteString.copyFrom(io.cutpoint.api.Sha256.of(new byte[] {1})))
            .build();
    CompletableFuture<ChunkAnswer> early = find(query);
    Awaitility.await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !early.isDone()); // waiting behind the pending manifest

    releasePending.countDown();
    assertThat(early.get(20, TimeUnit.SECONDS).getMissingList()).containsExactly(0, 1);
    assertThat(trigger.get(20, TimeUnit.SECONDS).getSnapshotId()).isEqualTo(id);
    assertThat(find(query).get(20, TimeUnit.SECONDS).getMissingList())
        .as("answered at once, now that the store holds the snapshot")
        .containsExactly(0, 1);
    notYetOpen.set(true);
    assertThat(find(query).get(20, TimeUnit.SECONDS).getMissingList())
        .as("a store that has the manifest but has not opened the snapshot yet: asked again behind")
        .containsExactly(0, 1);
    assertThat(notYetOpen).isFalse();
  }

  private CompletableFuture<ChunkAnswer> find(ChunkQuery query) {
    CompletableFuture<ChunkAnswer> answer = new CompletableFuture<>();
    pair.a
        .transfers()
        .findChunks(
            query,
            new io.grpc.stub.StreamObserver<>() {
              @Override
              public void onNext(ChunkAnswer value) {
                answer.complete(value);
              }

              @Override
              public void onError(Throwable t) {
                answer.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {}
            });
    return answer;
  }
}
