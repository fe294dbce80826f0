package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalCopyHeld;
import io.cutpoint.client.chunks.ArrayContent;
import io.cutpoint.client.chunks.ChunkRef;
import io.cutpoint.client.chunks.ContentChunker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker's local copy reads back as written, for its snapshot only, and never when damaged. */
class LocalCopyTest {
  @TempDir Path dir;

  private static List<ContentChunk> listed(ArrayContent content) {
    return content.recipe().stream()
        .map(
            (ChunkRef c) ->
                ContentChunk.newBuilder()
                    .setSha256(com.google.protobuf.ByteString.copyFrom(c.sha256()))
                    .setLength(c.length())
                    .setCrc32C(c.crc32c())
                    .build())
        .toList();
  }

  @Test
  void aCopyReadsBackForItsSnapshotAndNotForAnother() {
    byte[] state = Pieces.state(700_000, 1);
    ArrayContent content = new ArrayContent(state, ContentChunker.defaults());
    try (LocalCopy copy = new LocalCopy(dir, "w", () -> {})) {
      copy.keep(7, content);
      await().atMost(Duration.ofSeconds(10)).until(() -> copy.read(7).isPresent());
      LocalCopy.Copy read = copy.read(7).orElseThrow();
      assertThat(read.state()).isEqualTo(state);
      assertThat(read.content()).isEqualTo(listed(content));
      assertThat(copy.read(8)).isEmpty();
      copy.keep(8, new ArrayContent(Pieces.state(10, 2), ContentChunker.defaults()));
      await().atMost(Duration.ofSeconds(10)).until(() -> copy.read(8).isPresent());
      assertThat(copy.read(7)).as("only the newest is kept").isEmpty();
    }
  }

  @Test
  void heldNamesTheCopyOnDiskAndEachNewCopyIsAnnounced() {
    ArrayContent content = new ArrayContent(Pieces.state(200_000, 4), ContentChunker.defaults());
    java.util.concurrent.atomic.AtomicInteger kept =
        new java.util.concurrent.atomic.AtomicInteger();
    try (LocalCopy copy = new LocalCopy(dir, "w", kept::incrementAndGet)) {
      assertThat(copy.held().getSnapshotId()).as("nothing on disk yet").isZero();
      copy.keep(9, content);
      await().atMost(Duration.ofSeconds(10)).until(() -> kept.get() == 1);
      assertThat(copy.held())
          .isEqualTo(
              LocalCopyHeld.newBuilder()
                  .setSnapshotId(9)
                  .setStateBytes(200_000)
                  .setStateCrc32C(content.crc32c())
                  .build());
    }
    try (LocalCopy reopened = new LocalCopy(dir, "w", () -> {})) {
      assertThat(reopened.held().getSnapshotId()).as("read from the file's head").isEqualTo(9);
      assertThat(reopened.held().getStateCrc32C()).isEqualTo(content.crc32c());
      reopened.discard(9);
      await().atMost(Duration.ofSeconds(10)).until(() -> reopened.held().getSnapshotId() == 0);
      assertThat(reopened.read(9)).isEmpty();
    }
  }

  /**
   * A restore that found the copy not to match retries at once: the retry must download, although
   * the writer thread (busy here) has not deleted the file yet.
   */
  @Test
  void aDiscardedCopyIsNotReadAgainBeforeItsFileIsDeleted() throws Exception {
    java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    try (LocalCopy copy =
        new LocalCopy(
            dir,
            "w",
            () -> {
              busy.countDown();
              try {
                release.await(10, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            })) {
      copy.keep(7, new ArrayContent(Pieces.state(1000, 5), ContentChunker.defaults()));
      assertThat(busy.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(copy.read(7)).as("on disk, the writer still busy").isPresent();

      copy.discard(7);

      assertThat(copy.read(7)).isEmpty();
      assertThat(copy.held().getSnapshotId()).isZero();
      assertThat(Files.exists(dir.resolve("w.state"))).as("not deleted yet").isTrue();
      release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(dir.resolve("w.state")));
    }
  }

  /** A copy found not to match is discarded, but not a newer one written since it was read. */
  @Test
  void discardingACopyLeavesANewerOne() {
    try (LocalCopy copy = new LocalCopy(dir, "w", () -> {})) {
      copy.keep(7, new ArrayContent(Pieces.state(1000, 5), ContentChunker.defaults()));
      await().atMost(Duration.ofSeconds(10)).until(() -> copy.read(7).isPresent());
      copy.keep(8, new ArrayContent(Pieces.state(1000, 6), ContentChunker.defaults()));
      copy.discard(7); // a restore of 7 found it wrong while 8 was being written
      copy.discard(9); // and one that was never on this disk
    }
    try (LocalCopy reopened = new LocalCopy(dir, "w", () -> {})) {
      assertThat(reopened.read(8)).isPresent();
      assertThat(reopened.held().getSnapshotId()).isEqualTo(8);
    }
  }

  @Test
  void aDamagedOrCutCopyIsNotUsed() throws Exception {
    byte[] state = Pieces.state(300_000, 3);
    try (LocalCopy copy = new LocalCopy(dir, "w", () -> {})) {
      copy.keep(5, new ArrayContent(state, ContentChunker.defaults()));
      await().atMost(Duration.ofSeconds(10)).until(() -> copy.read(5).isPresent());
    }
    Path file = dir.resolve("w.state");
    byte[] bytes = Files.readAllBytes(file);
    for (int at : new int[] {26, 40, 100_000, bytes.length - 1}) {
      byte[] damaged = bytes.clone();
      damaged[at] ^= 1;
      Files.write(file, damaged);
      try (LocalCopy copy = new LocalCopy(dir, "w", () -> {})) {
        assertThat(copy.read(5)).as("byte %d flipped", at).isEmpty();
        assertThat(copy.held().getSnapshotId()).as("no longer reported").isZero();
      }
    }
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 10));
    try (LocalCopy copy = new LocalCopy(dir, "w", () -> {})) {
      assertThat(copy.read(5)).isEmpty();
      copy.discard(5);
    }
    assertThat(file).doesNotExist();
  }
}
