package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.client.chunks.ChunkRecipe;
import io.cutpoint.client.chunks.ContentChunker;
import io.cutpoint.client.engine.CapturedState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A state that goes up as content chunks is cut from its capture, while the snapshot's markers are
 * out, and the upload takes that cut: see {@link StateCutter}.
 */
class CutFromCaptureTest {

  private static final int MIB = 1 << 20;

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final FakeCoordinator fake = coordinator.fake;
  private final SessionThreads.OwnLoop loop = SessionThreads.ownLoop("cut-from-capture-test");
  private final ExecutorService pool = Executors.newFixedThreadPool(2);
  private final AtomicInteger tasks = new AtomicInteger();
  private final AtomicInteger cutting = new AtomicInteger();
  private final AtomicInteger mostAtOnce = new AtomicInteger();

  /** The chunking threads, counting their tasks and how many of them ran at once. */
  private final Executor chunking =
      task ->
          pool.execute(
              () -> {
                tasks.incrementAndGet();
                mostAtOnce.accumulateAndGet(cutting.incrementAndGet(), Math::max);
                try {
                  task.run();
                } finally {
                  cutting.decrementAndGet();
                }
              });

  private final SnapshotUploader uploader =
      new SnapshotUploader(
          coordinator.channel,
          loop,
          MIB,
          true,
          Duration.ofMinutes(1),
          null,
          chunking,
          SnapshotUploader.Pieces.NONE);

  CutFromCaptureTest() {
    fake.heldHashes = ConcurrentHashMap.newKeySet();
  }

  @AfterEach
  void tearDown() throws Exception {
    pool.shutdownNow();
    pool.awaitTermination(5, TimeUnit.SECONDS);
    SessionThreads.executor(loop.executor(), Duration.ofSeconds(5), "test loop");
    coordinator.close();
  }

  @Test
  void aStateIsCutOnceFromItsCaptureAndItsUploadTakesThatCut() throws Exception {
    byte[] state = Pieces.state(4 * MIB, 1);
    loop.execute(() -> uploader.captured("w", 1, CapturedState.of(state)));
    await().atMost(Duration.ofSeconds(10)).until(() -> uploader.cutsMade() == 1);

    upload(1, state);

    assertThat(uploader.cutsMade()).as("the upload cut nothing again").isEqualTo(1);
    int chunks = ChunkRecipe.of(state, ContentChunker.defaults()).size();
    assertThat(fake.uploads.get(0).parts.stream().filter(UploadPart::hasStateChunk).count())
        .isEqualTo(chunks);
  }

  @Test
  void statesCapturedInARowAreCutOneAtATimeAndEachAgainstTheLast() throws Exception {
    byte[] first = Pieces.state(4 * MIB, 2);
    byte[] second = first.clone();
    System.arraycopy(Pieces.state(4_000, 3), 0, second, 3 * MIB, 4_000);
    byte[] third = second.clone();
    System.arraycopy(Pieces.state(4_000, 4), 0, third, MIB, 4_000);
    loop.execute(
        () -> {
          uploader.captured("w", 1, CapturedState.of(first));
          uploader.captured("w", 2, CapturedState.of(second));
          uploader.captured("w", 3, CapturedState.of(third));
        });

    upload(1, first);
    upload(2, second);
    upload(3, third);

    assertThat(uploader.cutsMade()).isEqualTo(3);
    assertThat(mostAtOnce).as("one worker's cuts never overlap").hasValue(1);
    assertThat(stateChunksSent(1)).isBetween(1L, 3L); // the change, not the state
    assertThat(stateChunksSent(2)).isBetween(1L, 3L);
  }

  @Test
  void theQuestionAboutTheLastUploadGoesAtTheCaptureAndItsUploadTakesTheAnswer() throws Exception {
    byte[] first = Pieces.state(4 * MIB, 6);
    upload(1, first);
    assertThat(fake.chunkQueries).hasSize(1);
    byte[] second = first.clone();
    System.arraycopy(Pieces.state(4_000, 7), 0, second, 2 * MIB, 4_000);

    loop.execute(() -> uploader.captured("w", 2, CapturedState.of(second)));
    await().atMost(Duration.ofSeconds(10)).until(() -> fake.chunkQueries.size() == 2);
    upload(2, second);

    assertThat(fake.chunkQueries).as("no question after the capture's").hasSize(2);
    assertThat(fake.chunkQueries.get(1).getSnapshotId()).isEqualTo(2);
    assertThat(fake.chunkQueries.get(1).getSha256Count())
        .isEqualTo(ChunkRecipe.of(first, ContentChunker.defaults()).size());
    assertThat(stateChunksSent(1)).isBetween(1L, 3L);
  }

  @Test
  void aCutWhoseSnapshotEndedIsForgottenAndAtMostAFewWait() throws Exception {
    CapturedState small = CapturedState.of(Pieces.state(2 * MIB, 5));
    CompletableFuture<List<Long>> ahead = new CompletableFuture<>();
    loop.execute(
        () -> {
          for (long id = 1; id <= StateCutter.MAX_AHEAD + 2; id++) {
            uploader.captured("w", id, small);
          }
          uploader.forget(StateCutter.MAX_AHEAD + 1);
          ahead.complete(uploader.cutsAhead());
        });

    assertThat(ahead.get(10, TimeUnit.SECONDS))
        .containsExactlyInAnyOrder(3L, 4L, (long) StateCutter.MAX_AHEAD + 2);
  }

  @Test
  void aStateTooSmallToCutOffTheLoopIsNotCutAhead() throws Exception {
    CompletableFuture<List<Long>> ahead = new CompletableFuture<>();
    loop.execute(
        () -> {
          uploader.captured("w", 1, CapturedState.of(new byte[SnapshotUploader.SMALL_STATE]));
          ahead.complete(uploader.cutsAhead());
        });

    assertThat(ahead.get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(tasks).hasValue(0);
  }

  private long stateChunksSent(int upload) {
    return fake.uploads.get(upload).parts.stream().filter(UploadPart::hasStateChunk).count();
  }

  private void upload(long id, byte[] state) throws Exception {
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
    result.get(10, TimeUnit.SECONDS);
  }
}
