package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.chunks.ChunkRecipe;
import io.cutpoint.client.chunks.ContentChunker;
import io.cutpoint.client.engine.CapturedState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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

  private final UploaderFixture f = new UploaderFixture("cut-from-capture-test", pool, chunking);
  private final FakeCoordinator fake = f.fake;
  private final SessionThreads.OwnLoop loop = f.loop;
  private final SnapshotUploader uploader = f.uploader;

  @AfterEach
  void tearDown() throws Exception {
    f.close();
  }

  @Test
  void aStateIsCutOnceFromItsCaptureAndItsUploadTakesThatCut() throws Exception {
    byte[] state = Pieces.state(4 * MIB, 1);
    loop.execute(() -> uploader.captured("w", 1, CapturedState.of(state)));
    await().atMost(Duration.ofSeconds(10)).until(() -> uploader.cutsMade() == 1);

    f.upload(1, state);

    assertThat(uploader.cutsMade()).as("the upload cut nothing again").isEqualTo(1);
    int chunks = ChunkRecipe.of(state, ContentChunker.defaults()).size();
    assertThat(f.sentPositions(0)).hasSize(chunks);
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

    f.upload(1, first);
    f.upload(2, second);
    f.upload(3, third);

    assertThat(uploader.cutsMade()).isEqualTo(3);
    assertThat(mostAtOnce).as("one worker's cuts never overlap").hasValue(1);
    assertThat(f.sentPositions(1)).hasSizeBetween(1, 3); // the change, not the state
    assertThat(f.sentPositions(2)).hasSizeBetween(1, 3);
  }

  @Test
  void theQuestionAboutTheLastUploadGoesAtTheCaptureAndItsUploadTakesTheAnswer() throws Exception {
    byte[] first = Pieces.state(4 * MIB, 6);
    f.upload(1, first);
    assertThat(fake.chunkQueries).hasSize(1);
    byte[] second = first.clone();
    System.arraycopy(Pieces.state(4_000, 7), 0, second, 2 * MIB, 4_000);

    loop.execute(() -> uploader.captured("w", 2, CapturedState.of(second)));
    await().atMost(Duration.ofSeconds(10)).until(() -> fake.chunkQueries.size() == 2);
    f.upload(2, second);

    assertThat(fake.chunkQueries).as("no question after the capture's").hasSize(2);
    assertThat(fake.chunkQueries.get(1).getSnapshotId()).isEqualTo(2);
    assertThat(fake.chunkQueries.get(1).getSha256Count())
        .isEqualTo(ChunkRecipe.of(first, ContentChunker.defaults()).size());
    assertThat(f.sentPositions(1)).hasSizeBetween(1, 3);
  }

  @Test
  void aCutWhoseSnapshotEndedIsForgottenAndAtMostAFewWait() throws Exception {
    CapturedState small = CapturedState.of(Pieces.state(2 * MIB, 5));
    CompletableFuture<List<Long>> ahead = new CompletableFuture<>();
    loop.execute(
        () -> {
          for (long id = 1; id <= SnapshotUploader.MAX_AHEAD + 2; id++) {
            uploader.captured("w", id, small);
          }
          uploader.forget(SnapshotUploader.MAX_AHEAD + 1);
          ahead.complete(uploader.cutsAhead());
        });

    assertThat(ahead.get(10, TimeUnit.SECONDS))
        .containsExactlyInAnyOrder(3L, 4L, (long) SnapshotUploader.MAX_AHEAD + 2);
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
}
