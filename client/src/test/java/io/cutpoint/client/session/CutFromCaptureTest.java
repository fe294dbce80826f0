package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.chunks.ChunkRecipe;
import io.cutpoint.client.chunks.ContentChunker;
import io.cutpoint.client.engine.CapturedState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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

  /** Closed by a test that needs the chunking threads to wait before they begin. */
  private volatile CountDownLatch gate = new CountDownLatch(0);

  /** The chunking threads, counting their tasks and how many of them ran at once. */
  private final Executor chunking =
      task ->
          pool.execute(
              () -> {
                awaitGate();
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
    loop.execute(() -> uploader.captured("w", 1, CapturedState.of(state), true));
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
          uploader.captured("w", 1, CapturedState.of(first), true);
          uploader.captured("w", 2, CapturedState.of(second), true);
          uploader.captured("w", 3, CapturedState.of(third), true);
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

    loop.execute(() -> uploader.captured("w", 2, CapturedState.of(second), true));
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
    CapturedState state = CapturedState.of(Pieces.state(2 * MIB, 5));
    List<Long> ahead =
        onLoop(
            () -> {
              for (long id = 1; id <= SnapshotUploader.MAX_AHEAD + 2; id++) {
                uploader.captured("w", id, state, true);
              }
              uploader.forget(2);
              uploader.captured("w", 7, state, true);
              return uploader.cutsAhead();
            });

    assertThat(ahead).as("5 and 6 came when 4 waited").containsExactlyInAnyOrder(1L, 3L, 4L, 7L);
  }

  @Test
  void aCutForgottenBeforeItsTurnIsNotMade() throws Exception {
    byte[] first = Pieces.state(2 * MIB, 8);
    byte[] second = Pieces.state(2 * MIB, 9);
    byte[] third = Pieces.state(2 * MIB, 10);
    gate = new CountDownLatch(1);
    runOnLoop(
        () -> {
          uploader.captured("w", 1, CapturedState.of(first), true);
          uploader.captured("w", 2, CapturedState.of(second), true);
          uploader.captured("w", 3, CapturedState.of(third), true);
          uploader.forget(2);
        });
    gate.countDown();

    f.upload(1, first);
    f.upload(3, third);

    assertThat(uploader.cutsMade()).as("1 and 3, not 2").isEqualTo(2);
  }

  @Test
  void aBacklogOfUploadsCutsNoStateTwice() throws Exception {
    int n = SnapshotUploader.MAX_AHEAD + 2;
    byte[][] states = new byte[n + 1][];
    for (int id = 1; id <= n; id++) {
      states[id] = Pieces.state(2 * MIB, 20 + id);
    }
    runOnLoop(
        () -> {
          for (int id = 1; id <= n; id++) {
            uploader.captured("w", id, CapturedState.of(states[id]), true);
          }
        });

    for (int id = 1; id <= n; id++) {
      f.upload(id, states[id]);
    }

    assertThat(uploader.cutsMade())
        .as("the first %d cut ahead, the rest by their uploads", SnapshotUploader.MAX_AHEAD)
        .isEqualTo(n);
  }

  @Test
  void anUploadLeavesTheCutsOfEarlierSnapshotsToTheirUploads() throws Exception {
    byte[] first = Pieces.state(2 * MIB, 11);
    byte[] second = Pieces.state(2 * MIB, 12);
    runOnLoop(
        () -> {
          uploader.captured("w", 1, CapturedState.of(first), true);
          uploader.captured("w", 2, CapturedState.of(second), true);
        });

    f.upload(2, second); // concurrent snapshots may complete out of order
    f.upload(1, first);

    assertThat(uploader.cutsMade()).isEqualTo(2);
  }

  @Test
  void theQueueForgetsTheCutOfADroppedSnapshotAndEverythingWhenItCloses() throws Exception {
    byte[] first = Pieces.state(2 * MIB, 13);
    f.upload(1, first);
    UploadQueue queue = queue();
    runOnLoop(queue::joined);
    queue.captured(2, CapturedState.of(Pieces.state(2 * MIB, 14)));
    queue.captured(3, CapturedState.of(Pieces.state(2 * MIB, 15)));
    queue.captured(4, CapturedState.of(Pieces.state(2 * MIB, 16)));
    assertThat(onLoop(uploader::cutsAhead)).containsExactlyInAnyOrder(2L, 3L, 4L);

    queue.dropped(3); // aborted, or ended by a halt or a restore
    assertThat(onLoop(uploader::cutsAhead)).containsExactlyInAnyOrder(2L, 4L);

    queue.close();
    assertThat(onLoop(uploader::cutsAhead)).isEmpty();

    queue.captured(5, CapturedState.of(Pieces.state(2 * MIB, 18))); // it stays the listener
    assertThat(onLoop(uploader::cutsAhead)).as("a capture after the close").isEmpty();
  }

  @Test
  void noQuestionGoesAtACaptureBeforeTheSessionIsWelcomed() throws Exception {
    byte[] first = Pieces.state(2 * MIB, 17);
    f.upload(1, first);
    assertThat(fake.chunkQueries).hasSize(1);
    UploadQueue queue = queue();

    queue.captured(2, CapturedState.of(first.clone()));
    await().atMost(Duration.ofSeconds(10)).until(() -> uploader.cutsMade() == 2);
    assertThat(fake.chunkQueries).as("its secret would be the last session's").hasSize(1);

    runOnLoop(queue::joined);
    queue.captured(3, CapturedState.of(first.clone()));
    await().atMost(Duration.ofSeconds(10)).until(() -> fake.chunkQueries.size() == 2);
    assertThat(fake.chunkQueries.get(1).getSnapshotId()).isEqualTo(3);
  }

  @Test
  void aStateTooSmallToCutOffTheLoopIsNotCutAhead() throws Exception {
    List<Long> ahead =
        onLoop(
            () -> {
              uploader.captured(
                  "w", 1, CapturedState.of(new byte[SnapshotUploader.SMALL_STATE]), true);
              return uploader.cutsAhead();
            });

    assertThat(ahead).isEmpty();
    assertThat(tasks).hasValue(0);
  }

  /** A queue over the fixture's uploader, not joined yet, that reports to nobody. */
  private UploadQueue queue() {
    UploadQueue.Reports none =
        new UploadQueue.Reports() {
          @Override
          public boolean snapshotFailed(long snapshotId, String reason) {
            return false;
          }

          @Override
          public void uploaded(long snapshotId, long storedBytes) {}

          @Override
          public void uploadFailed(long snapshotId, String reason) {}
        };
    return new UploadQueue("w", uploader, () -> 0L, none, loop, 4);
  }

  /** Runs {@code body} on the loop and returns what it gave. */
  private <T> T onLoop(java.util.function.Supplier<T> body) throws Exception {
    return CompletableFuture.supplyAsync(body, loop).get(10, TimeUnit.SECONDS);
  }

  /** Runs {@code body} on the loop and waits for it. */
  private void runOnLoop(Runnable body) throws Exception {
    CompletableFuture.runAsync(body, loop).get(10, TimeUnit.SECONDS);
  }

  private void awaitGate() {
    try {
      if (!gate.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
