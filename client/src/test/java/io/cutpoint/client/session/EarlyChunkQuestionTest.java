package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ChunkQuery;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.client.chunks.ChunkRecipe;
import io.cutpoint.client.chunks.ChunkRef;
import io.cutpoint.client.chunks.ContentChunker;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A content-addressed upload asks about the chunks of the last one while its state is cut, and
 * sends what that answer does not cover: see {@link HeldChunks}.
 */
class EarlyChunkQuestionTest {

  private static final int MIB = 1 << 20;

  private final ExecutorService chunking = Executors.newSingleThreadExecutor();
  private final UploaderFixture f = new UploaderFixture("early-question-test", chunking, chunking);
  private final FakeCoordinator fake = f.fake;

  @AfterEach
  void tearDown() throws Exception {
    f.close();
  }

  @Test
  void aSmallChangeIsAskedAboutWhileTheStateIsCutAndOnlyItsChunksGoUp() throws Exception {
    byte[] first = Pieces.state(4 * MIB, 1);
    f.upload(1, first);
    assertThat(fake.chunkQueries).hasSize(1);

    byte[] second = changed(first, 2 * MIB, 20_000);
    CountDownLatch cutMayEnd = new CountDownLatch(1);
    chunking.execute(() -> awaitQuietly(cutMayEnd)); // the cut waits behind this
    CompletableFuture<UploadResult> result = f.start(2, second);
    await().atMost(Duration.ofSeconds(5)).until(() -> fake.chunkQueries.size() == 2);
    assertThat(result).as("the question went before the state was cut").isNotDone();
    assertThat(hashes(fake.chunkQueries.get(1))).isEqualTo(hashes(recipe(first)));
    cutMayEnd.countDown();
    result.get(10, TimeUnit.SECONDS);

    assertThat(fake.chunkQueries).as("no second question").hasSize(2);
    Set<ByteString> before = Set.copyOf(hashes(recipe(first)));
    List<ChunkRef> now = recipe(second);
    List<Integer> changed =
        IntStream.range(0, now.size())
            .filter(i -> !before.contains(ByteString.copyFrom(now.get(i).sha256())))
            .boxed()
            .toList();
    assertThat(changed).isNotEmpty().hasSizeLessThan(now.size() / 8);
    assertThat(f.sentPositions(1)).isEqualTo(changed);
    assertThat(header(1).getContentCount()).isEqualTo(now.size());
  }

  @Test
  void aChunkOfTheLastUploadThatTheCoordinatorNoLongerHoldsGoesUpAgain() throws Exception {
    byte[] first = Pieces.state(4 * MIB, 2);
    f.upload(1, first);
    List<ChunkRef> old = recipe(first);
    ByteString lost = ByteString.copyFrom(old.get(5).sha256());
    fake.heldHashes.remove(lost); // e.g. its snapshot failed and its chunks were deleted

    byte[] second = changed(first, 3 * MIB, 10_000);
    f.upload(2, second);

    List<ChunkRef> now = recipe(second);
    int lostAt = positionOf(now, lost);
    assertThat(f.sentPositions(1)).contains(lostAt);
    assertThat(f.sentPositions(1))
        .allMatch(i -> i == lostAt || !Set.copyOf(hashes(old)).contains(sha(now.get(i))));
  }

  @Test
  void aLargeChangeIsAskedAboutAgainAsAWhole() throws Exception {
    byte[] first = Pieces.state(4 * MIB, 3);
    f.upload(1, first);
    byte[] other = Pieces.state(4 * MIB, 4);
    fake.heldHashes.addAll(hashes(recipe(other))); // held already, e.g. another worker's

    f.upload(2, other);

    assertThat(fake.chunkQueries).hasSize(3);
    assertThat(hashes(fake.chunkQueries.get(1))).isEqualTo(hashes(recipe(first)));
    assertThat(hashes(fake.chunkQueries.get(2))).isEqualTo(hashes(recipe(other)));
    assertThat(f.sentPositions(1)).as("all held: nothing goes up").isEmpty();
  }

  @Test
  void aFailedEarlyQuestionIsAskedAgainAfterTheCut() throws Exception {
    byte[] first = Pieces.state(4 * MIB, 5);
    f.upload(1, first);
    fake.failFindChunks.set(1);

    byte[] second = changed(first, MIB, 1_000);
    f.upload(2, second);

    assertThat(fake.chunkQueries).hasSize(3);
    assertThat(hashes(fake.chunkQueries.get(2))).isEqualTo(hashes(recipe(second)));
    Set<ByteString> before = Set.copyOf(hashes(recipe(first)));
    List<ChunkRef> now = recipe(second);
    assertThat(f.sentPositions(1)).isNotEmpty().allMatch(i -> !before.contains(sha(now.get(i))));
  }

  /** A copy of {@code state} with {@code length} bytes from {@code at} changed. */
  private static byte[] changed(byte[] state, int at, int length) {
    byte[] copy = state.clone();
    byte[] run = Pieces.state(length, at);
    System.arraycopy(run, 0, copy, at, length);
    return copy;
  }

  private static List<ChunkRef> recipe(byte[] state) {
    return ChunkRecipe.of(state, ContentChunker.defaults());
  }

  private static ByteString sha(ChunkRef c) {
    return ByteString.copyFrom(c.sha256());
  }

  private static List<ByteString> hashes(List<ChunkRef> recipe) {
    return recipe.stream().map(EarlyChunkQuestionTest::sha).toList();
  }

  private static List<ByteString> hashes(ChunkQuery query) {
    return query.getSha256List();
  }

  private static int positionOf(List<ChunkRef> recipe, ByteString hash) {
    return IntStream.range(0, recipe.size())
        .filter(i -> sha(recipe.get(i)).equals(hash))
        .findFirst()
        .orElseThrow();
  }

  private io.cutpoint.api.v1.LocalSnapshotMeta header(int upload) {
    return fake.uploads.get(upload).parts.get(0).getHeader().getMeta();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
