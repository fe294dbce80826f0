package io.cutpoint.client.session;

import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A {@link SnapshotUploader} on a loop of its own, with content chunks on, against an in-process
 * {@link FakeCoordinator} that keeps the chunks it was sent. It stops the chunking threads it is
 * given when closed.
 */
final class UploaderFixture implements AutoCloseable {

  private static final int MIB = 1 << 20;

  final InProcessCoordinator coordinator = new InProcessCoordinator();
  final FakeCoordinator fake = coordinator.fake;
  final SessionThreads.OwnLoop loop;
  final SnapshotUploader uploader;
  private final ExecutorService pool;

  /** {@code chunking}: where states are cut, on {@code pool} (or {@code pool} itself). */
  UploaderFixture(String name, ExecutorService pool, Executor chunking) {
    this.pool = pool;
    loop = SessionThreads.ownLoop(name);
    uploader =
        new SnapshotUploader(
            coordinator.channel,
            loop,
            MIB,
            true,
            Duration.ofMinutes(1),
            null,
            chunking,
            SnapshotUploader.Pieces.NONE);
    fake.heldHashes = ConcurrentHashMap.newKeySet();
  }

  /** Starts uploading {@code state} as snapshot {@code id}'s piece, on the loop. */
  CompletableFuture<UploadResult> start(long id, byte[] state) {
    CompletableFuture<UploadResult> result = new CompletableFuture<>();
    loop.execute(
        () ->
            uploader.start(
                Pieces.completed(id, state),
                0,
                (r, status) -> {
                  if (r != null) {
                    result.complete(r);
                  } else {
                    result.completeExceptionally(status.asException());
                  }
                }));
    return result;
  }

  /** Uploads {@code state} as snapshot {@code id}'s piece and waits for the answer. */
  void upload(long id, byte[] state) throws Exception {
    start(id, state).get(10, TimeUnit.SECONDS);
  }

  /** The positions of the state chunks that the {@code upload}-th upload sent, in order. */
  List<Integer> sentPositions(int upload) {
    return fake.uploads.get(upload).parts.stream()
        .filter(UploadPart::hasStateChunk)
        .map(p -> p.getStateChunk().getIndex())
        .toList();
  }

  @Override
  public void close() throws Exception {
    pool.shutdownNow();
    pool.awaitTermination(5, TimeUnit.SECONDS);
    SessionThreads.executor(loop.executor(), Duration.ofSeconds(5), "test loop");
    coordinator.close();
  }
}
