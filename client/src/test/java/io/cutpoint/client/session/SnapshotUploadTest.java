package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.AbortSnapshot;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.api.v1.WorkerMessage.BodyCase;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Uploads of completed local snapshots: content, order, flow control, failures. */
class SnapshotUploadTest {

  private static final int MIB = 1 << 20;

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final FakeCoordinator fake = coordinator.fake;
  private final FakeWorker worker = new FakeWorker("w", List.of("a", "c"), List.of("a", "b"));
  private final List<String> outcomes = new CopyOnWriteArrayList<>();
  private CoordinatorSession session;

  @AfterEach
  void tearDown() {
    if (session != null) {
      session.close();
    }
    coordinator.close();
  }

  private void joined(SessionOptions options) throws Exception {
    session = new CoordinatorSession(coordinator.channel, worker, options);
    session.addListener(
        new SessionListener() {
          @Override
          public void uploaded(long snapshotId, long stateBytes) {
            outcomes.add("uploaded " + snapshotId + " " + stateBytes);
          }

          @Override
          public void uploadFailed(long snapshotId, String reason) {
            outcomes.add("failed " + snapshotId + " " + reason);
          }
        });
    session.start().joined().get(5, TimeUnit.SECONDS);
  }

  @Test
  void aCompletedSnapshotIsUploadedWithHeaderChunksRecordingsAndTrailerInOrder() throws Exception {
    worker.epoch.set(0);
    joined(SessionOptions.defaults());
    CompletedLocalSnapshot snapshot = Pieces.completed(9, Pieces.state(2 * MIB + 12345, 1));
    worker.listener().completed(snapshot);

    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
    assertThat(outcomes).containsExactly("uploaded 9 " + (2 * MIB + 12345));
    List<UploadPart> parts = fake.uploads.get(0).parts;
    assertThat(parts).containsExactlyElementsOf(Pieces.uploadParts(snapshot, 0, MIB));
    assertThat(parts)
        .filteredOn(UploadPart::hasStateChunk)
        .hasSize(3)
        .allMatch(
            p ->
                p.getStateChunk().getCrc32C()
                    == Crc32c.of(p.getStateChunk().getData().toByteArray()));
  }

  @Test
  void aSnapshotCompletedWhileTheSessionIsDownIsUploadedAfterTheNextWelcomeWithItsSecret()
      throws Exception {
    fake.welcome = fake.welcome.toBuilder().setSessionSecret("first").build();
    joined(SessionOptions.defaults().withReconnect(Duration.ofMillis(10), Duration.ofMillis(50)));
    coordinator.stop();
    await().atMost(Duration.ofSeconds(5)).until(() -> session.state() == SessionState.CONNECTING);

    // a peer's marker can complete a local snapshot before the worker's own welcome
    worker.listener().completed(Pieces.completed(12, Pieces.state(1000, 4)));
    fake.welcome = fake.welcome.toBuilder().setSessionSecret("second").build();
    coordinator.start();

    await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.size() == 1);
    assertThat(outcomes).containsExactly("uploaded 12 1000");
    List<String> uploadSecrets =
        coordinator.headers.stream()
            .map(h -> h.get(SessionSecret.KEY))
            .filter(java.util.Objects::nonNull)
            .toList();
    assertThat(uploadSecrets).isNotEmpty().containsOnly("second");
  }

  @Test
  void aContentAddressedStateAsksWhichChunksTheCoordinatorLacksAndSendsOnlyThose()
      throws Exception {
    fake.heldChunks = java.util.Set.of(0, 2, 3);
    joined(SessionOptions.defaults());
    byte[] state = Pieces.state(MIB + 777, 5);
    worker.listener().completed(Pieces.completed(13, state));

    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
    assertThat(outcomes).singleElement().asString().startsWith("uploaded 13 ");
    List<io.cutpoint.client.chunks.ChunkRef> recipe =
        io.cutpoint.client.chunks.ChunkRecipe.of(
            state, io.cutpoint.client.chunks.ContentChunker.defaults());
    assertThat(recipe).hasSizeGreaterThan(8);
    assertThat(fake.chunkQueries).hasSize(1);
    assertThat(fake.chunkQueries.get(0).getSha256List())
        .extracting(com.google.protobuf.ByteString::toByteArray)
        .containsExactlyElementsOf(recipe.stream().map(c -> c.sha256()).toList());
    List<UploadPart> parts = fake.uploads.get(0).parts;
    assertThat(parts.get(0).getHeader().getMeta().getContentCount()).isEqualTo(recipe.size());
    List<UploadPart> chunks = parts.stream().filter(UploadPart::hasStateChunk).toList();
    assertThat(chunks)
        .extracting(p -> p.getStateChunk().getIndex())
        .as("every position but the held ones, ascending")
        .containsExactlyElementsOf(
            java.util.stream.IntStream.range(0, recipe.size())
                .filter(i -> i != 0 && i != 2 && i != 3)
                .boxed()
                .toList());
    for (UploadPart p : chunks) {
      io.cutpoint.client.chunks.ChunkRef c = recipe.get(p.getStateChunk().getIndex());
      assertThat(p.getStateChunk().getData().toByteArray())
          .isEqualTo(java.util.Arrays.copyOfRange(state, c.offset(), c.end()));
      assertThat(p.getStateChunk().getCrc32C()).isEqualTo(c.crc32c());
    }
    assertThat(parts.get(parts.size() - 1).getTrailer().getStateChunks())
        .isEqualTo(recipe.size() - 3);
  }

  @Test
  void aSixtyFourMebibyteStateStreamsInChunksAndReassemblesExactly() throws Exception {
    joined(SessionOptions.defaults());
    byte[] state = Pieces.state(64 * MIB, 2);
    long started = System.nanoTime();
    worker.listener().completed(Pieces.completed(10, state));
    await().atMost(Duration.ofSeconds(60)).until(() -> outcomes.size() == 1);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    System.out.println("64 MiB upload over in-process transport: " + millis + " ms");

    assertThat(outcomes).containsExactly("uploaded 10 " + 64 * MIB);
    List<UploadPart> parts = fake.uploads.get(0).parts;
    assertThat(parts)
        .filteredOn(UploadPart::hasStateChunk)
        .hasSize(64)
        .allMatch(p -> p.getStateChunk().getData().size() == MIB);
    PieceAssembler assembler = new PieceAssembler(10, "w");
    for (var p : Pieces.asDownload(parts)) {
      assembler.accept(p);
    }
    assertThat(assembler.finish().state()).isEqualTo(state);
  }

  @Test
  void theUploaderSendsOnlyWhatTheCoordinatorAskedFor() throws Exception {
    fake.manualUploadWindow = 3;
    SessionThreads.OwnLoop loop = SessionThreads.ownLoop("upload-test-loop");
    try {
      SnapshotUploader uploader =
          new SnapshotUploader(coordinator.channel, loop, MIB, false, Duration.ofMinutes(1));
      byte[] state = Pieces.state(16 * MIB, 3);
      CompletableFuture<UploadResult> result = new CompletableFuture<>();
      AtomicReference<SnapshotUploader.Upload> upload = new AtomicReference<>();
      loop.execute(
          () ->
              upload.set(
                  uploader.start(
                      Pieces.completed(11, state),
                      0,
                      (r, status) -> {
                        if (r != null) {
                          result.complete(r);
                        } else {
                          result.completeExceptionally(status.asException());
                        }
                      })));

      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> fake.uploads.size() == 1 && fake.uploads.get(0).parts.size() == 3);
      // The coordinator asked for 3 parts; the uploader must wait for the call to be ready, not
      // pile 16 MiB into buffers. Once it waits, it has sent all it is going to without credit.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  result.isDone()
                      || uploader.partsSent() > 4
                      || (upload.get() != null && upload.get().waitingForReady()));
      assertThat(uploader.partsSent()).isLessThanOrEqualTo(4);
      assertThat(result).isNotDone();

      fake.uploads.get(0).call.request(1000);
      assertThat(result.get(10, TimeUnit.SECONDS).getStoredStateBytes()).isEqualTo(16 * MIB);
      assertThat(uploader.partsSent()).isEqualTo(1 + 16 + 2 + 1);
    } finally {
      SessionThreads.executor(loop.executor(), Duration.ofSeconds(5), "test loop");
    }
  }

  @Test
  void withoutFlowControlTheTransportWouldBufferEverything() throws Exception {
    // Shows that the bound checked above comes from the uploader: a sender that ignores
    // isReady() gets every part accepted by the transport although only 3 were asked for.
    fake.manualUploadWindow = 3;
    CompletableFuture<ClientCallStreamObserver<UploadPart>> call = new CompletableFuture<>();
    CoordinatorGrpc.newStub(coordinator.channel)
        .uploadSnapshot(
            new ClientResponseObserver<UploadPart, UploadResult>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<UploadPart> requests) {
                call.complete(requests);
              }

              @Override
              public void onNext(UploadResult value) {}

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    int sent = 0;
    for (UploadPart p :
        Pieces.uploadParts(Pieces.completed(12, Pieces.state(16 * MIB, 4)), 0, MIB)) {
      call.get().onNext(p);
      sent++;
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> fake.uploads.get(0).parts.size() == 3);
    assertThat(sent).isEqualTo(20);
    assertThat(call.get().isReady()).isFalse();
    call.get().cancel("done", null);
  }

  @Test
  void uploadsAreSequentialAndAnAbortedQueuedSnapshotIsSkipped() throws Exception {
    fake.manualUploadWindow = 1;
    joined(SessionOptions.defaults());
    worker.listener().completed(Pieces.completed(20, Pieces.state(3 * MIB, 5)));
    worker.listener().completed(Pieces.completed(21, Pieces.state(3 * MIB, 6)));
    await().atMost(Duration.ofSeconds(5)).until(() -> fake.uploads.size() == 1);
    fake.send(
        CoordinatorMessage.newBuilder()
            .setAbortSnapshot(AbortSnapshot.newBuilder().setSnapshotId(21))
            .build());
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.calls.contains("abortSnapshot 21"));
    // Only the first upload is running: the second waits for it.
    assertThat(fake.uploads).hasSize(1);

    fake.uploads.get(0).call.request(1000);
    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 2);
    assertThat(outcomes)
        .containsExactly("uploaded 20 " + 3 * MIB, "failed 21 aborted by the coordinator");
    assertThat(fake.uploads).hasSize(1);
  }

  @Test
  void aFullUploadQueueGivesTheSnapshotUpAndTellsTheCoordinator() throws Exception {
    fake.manualUploadWindow = 1;
    joined(SessionOptions.defaults().withUploadQueue(1));
    worker.listener().completed(Pieces.completed(30, Pieces.state(MIB, 7)));
    await().atMost(Duration.ofSeconds(5)).until(() -> fake.uploads.size() == 1);
    worker.listener().completed(Pieces.completed(31, Pieces.state(MIB, 8)));
    worker.listener().completed(Pieces.completed(32, Pieces.state(MIB, 9)));

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> fake.received(BodyCase.SNAPSHOT_FAILED).size() == 1);
    WorkerMessage failed = fake.received(BodyCase.SNAPSHOT_FAILED).get(0);
    assertThat(failed.getSnapshotFailed().getSnapshotId()).isEqualTo(32);
    assertThat(failed.getSnapshotFailed().getReason()).contains("upload queue full");
    fake.manualUploadWindow = 0;
    fake.uploads.get(0).call.request(1000);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                fake.uploads.size() == 2
                    && outcomes.stream().filter(o -> o.startsWith("uploaded")).count() == 2);
  }

  @Test
  void aFailedUploadIsReportedAsSnapshotFailed() throws Exception {
    fake.failUploads = Status.INTERNAL.withDescription("disk full");
    joined(SessionOptions.defaults());
    worker.listener().completed(Pieces.completed(40, Pieces.state(1000, 10)));
    WorkerMessage failed = firstSnapshotFailed();
    assertThat(failed.getSnapshotFailed().getSnapshotId()).isEqualTo(40);
    assertThat(failed.getSnapshotFailed().getReason()).contains("INTERNAL", "disk full");
  }

  /**
   * An upload refused as "no longer pending" is reported too: the coordinator ignores it for a
   * snapshot that ended, and a snapshot it still waits for (a store that answered too early) then
   * ends at once instead of at its timeout.
   */
  @Test
  void anUploadRefusedAsNoLongerPendingIsStillReported() throws Exception {
    fake.failUploads = Status.FAILED_PRECONDITION.withDescription("snapshot 41 was aborted");
    joined(SessionOptions.defaults());
    worker.listener().completed(Pieces.completed(41, Pieces.state(1000, 11)));
    await().atMost(Duration.ofSeconds(5)).until(() -> outcomes.size() == 1);
    assertThat(outcomes.get(0)).startsWith("failed 41").contains("FAILED_PRECONDITION");
    WorkerMessage failed = firstSnapshotFailed();
    assertThat(failed.getSnapshotFailed().getSnapshotId()).isEqualTo(41);
    assertThat(failed.getSnapshotFailed().getReason()).contains("FAILED_PRECONDITION", "aborted");
  }

  /** The first {@code snapshot_failed} the coordinator got, once it got one. */
  private WorkerMessage firstSnapshotFailed() {
    return await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> fake.received(BodyCase.SNAPSHOT_FAILED), l -> !l.isEmpty())
        .get(0);
  }
}
