package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawPair.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A piece of some size is synced to disk as soon as it is in, ahead of its snapshot's commit; a
 * small one is left to the commit's sync ({@link UploadReceiver#EARLY_SYNC_BYTES}).
 */
class EarlySyncTest {

  @TempDir Path dir;
  private final List<String> calls = new CopyOnWriteArrayList<>();

  /** The store, recording its piece metadata writes and its syncs ahead of a commit, in order. */
  private SnapshotStore recording(SnapshotStore store) {
    return InterceptedStore.around(
        store,
        (method, args) -> {
          switch (method) {
            case "syncPieces" -> calls.add("sync");
            case "putWorkerMeta" ->
                calls.add("meta " + ((LocalSnapshotMeta) args[1]).getWorkerId());
            default -> {}
          }
        });
  }

  @Test
  void aPieceOfSomeSizeIsSyncedOnceItIsInAndASmallOneIsLeftToTheCommit() throws Exception {
    try (RawPair pair =
        new RawPair(
            new InProcessCoordinator(
                InProcessCoordinator.config(dir).heartbeatTimeout(Duration.ofMinutes(10)).build(),
                this::recording))) {
      CompletableFuture<UploadResult> small =
          RawWorker.send(pair.coordinator.async(), pair.pieceOfB(new byte[1_000], 2, 3));
      await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("meta b"));

      byte[] large = new byte[(int) UploadReceiver.EARLY_SYNC_BYTES];
      new java.util.Random(7).nextBytes(large);
      CompletableFuture<UploadResult> big =
          RawWorker.send(
              pair.coordinator.async(),
              RawWorker.upload(
                  RawWorker.meta(pair.snapshotId, "a")
                      .addSent(RawWorker.counter("b", 3))
                      .addReceived(RawWorker.counter("b", 0)),
                  large,
                  16 << 10,
                  List.of(ChannelRecording.newBuilder().setFrom("b").build())));
      assertThat(statusOf(big)).isEqualTo(Status.OK);
      assertThat(statusOf(small)).isEqualTo(Status.OK);
      assertThat(
              pair.coordinator
                  .admin()
                  .getSnapshot(
                      GetSnapshotRequest.newBuilder().setSnapshotId(pair.snapshotId).build())
                  .getManifest()
                  .getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("sync"));
      assertThat(calls.subList(0, calls.indexOf("sync")))
          .as("no sync before the large piece was in")
          .containsExactly("meta b", "meta a");
      assertThat(calls).containsOnlyOnce("sync");
    }
  }
}
