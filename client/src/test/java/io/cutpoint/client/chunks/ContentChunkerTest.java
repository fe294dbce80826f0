package io.cutpoint.client.chunks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class ContentChunkerTest {

  private static final int KIB = 1 << 10;
  private static final int MIB = 1 << 20;

  /** Any range of random bytes, any valid sizes: chunks tile the range within the bounds. */
  @Property(tries = 300)
  void chunksCoverTheRangeExactlyWithinTheSizeBounds(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 200_000) int length,
      @ForAll @IntRange(min = 0, max = 100) int from,
      @ForAll @IntRange(min = 7, max = 14) int avgBits,
      @ForAll @IntRange(min = 1, max = 8) int maxFactor) {
    int avg = 1 << avgBits;
    ContentChunker chunker = ContentChunker.of(Math.max(64, avg / 4), avg, avg * maxFactor + 1);
    byte[] data = randomBytes(from + length + 7, seed);
    int to = from + length;

    int[] ends = chunker.cut(data, from, to);

    assertCovers(chunker, ends, from, to);
    assertThat(chunker.cut(data, from, to)).isEqualTo(ends);
  }

  @Test
  void cutPointsDependOnContentNotOnWhereTheRangeLies() {
    byte[] data = randomBytes(2 * MIB, 11);
    ContentChunker chunker = ContentChunker.defaults();
    int from = 12_345;
    int[] inPlace = chunker.cut(data, from, data.length);
    int[] copied = chunker.cut(Arrays.copyOfRange(data, from, data.length));
    assertThat(Arrays.stream(copied).map(e -> e + from).toArray()).isEqualTo(inPlace);
  }

  @Test
  void anEmptyRangeHasNoChunksAndAShortOneIsOneChunk() {
    ContentChunker chunker = ContentChunker.defaults();
    byte[] data = randomBytes(100, 3);
    assertThat(chunker.cut(new byte[0])).isEmpty();
    assertThat(chunker.cut(data, 40, 40)).isEmpty();
    assertThat(chunker.cut(data, 10, 90)).containsExactly(90);
    assertThatThrownBy(() -> chunker.cut(data, 50, 101))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void dataWithoutCutPointsComesOutInChunksOfTheMaxSize() {
    ContentChunker chunker = ContentChunker.defaults();
    int[] ends = chunker.cut(new byte[MIB + 5]);
    assertThat(ends).containsExactly(256 * KIB, 512 * KIB, 768 * KIB, MIB, MIB + 5);
  }

  @Test
  void meanChunkSizeOnRandomDataIsNearTheTarget() {
    ContentChunker chunker = ContentChunker.defaults();
    byte[] data = randomBytes(64 * MIB, 64);
    int[] ends = chunker.cut(data);
    assertCovers(chunker, ends, 0, data.length);
    double mean = (double) data.length / ends.length;
    assertThat(mean).isBetween(0.6 * chunker.avgSize(), 1.6 * chunker.avgSize());
  }

  @Test
  void anInsertionDeletionOrOverwriteInTheMiddleChangesOnlyAFewChunks() {
    byte[] original = randomBytes(16 * MIB, 16);
    int middle = original.length / 2 + 777;
    List<ChunkRef> before = ChunkRecipe.of(original, ContentChunker.defaults());
    for (byte[] edited :
        List.of(
            insert(original, middle, new byte[] {1, 2, 3}),
            delete(original, middle, 5),
            overwrite(original, middle, new byte[] {9, 9, 9, 9}))) {
      List<ChunkRef> after = ChunkRecipe.of(edited, ContentChunker.defaults());
      assertThat(sharedFraction(before, after)).isGreaterThanOrEqualTo(0.95);
    }
  }

  /**
   * The property above is what fixed-size slicing lacks: an insertion shifts every later slice, so
   * only the slices before it keep their hashes.
   */
  @Test
  void afterAnInsertionContentDefinedChunksKeepTheirHashesAndFixedSizeSlicesDoNot() {
    byte[] original = randomBytes(16 * MIB, 16);
    List<ChunkRef> contentDefined = ChunkRecipe.of(original, ContentChunker.defaults());
    List<ChunkRef> fixedSize = ChunkRecipe.of(original, fixedEnds(original.length, 64 * KIB));

    byte[] nearTheStart = insert(original, 4 * KIB, new byte[] {1, 2, 3});
    assertThat(
            sharedFraction(contentDefined, ChunkRecipe.of(nearTheStart, ContentChunker.defaults())))
        .isGreaterThanOrEqualTo(0.95);
    assertThat(
            sharedFraction(
                fixedSize, ChunkRecipe.of(nearTheStart, fixedEnds(nearTheStart.length, 64 * KIB))))
        .isLessThan(0.10);

    byte[] inTheMiddle = insert(original, original.length / 2 + 777, new byte[] {1, 2, 3});
    assertThat(
            sharedFraction(contentDefined, ChunkRecipe.of(inTheMiddle, ContentChunker.defaults())))
        .isGreaterThanOrEqualTo(0.95);
    assertThat(
            sharedFraction(
                fixedSize, ChunkRecipe.of(inTheMiddle, fixedEnds(inTheMiddle.length, 64 * KIB))))
        .isLessThan(0.55);
  }

  /**
   * The cut points of one seeded MiB, recorded once. If this fails, the gear table, the masks or
   * the skipping changed, and with them every chunk hash a coordinator holds: do not update the
   * list unless that is the point.
   */
  @Test
  void cutPointsOfAPinnedInputNeverChange() {
    byte[] data = randomBytes(MIB, 0x5eed);
    assertThat(ContentChunker.defaults().cut(data)).containsExactly(PINNED_DEFAULTS);
    assertThat(ContentChunker.of(256, 1024, 4096).cut(data, 0, 16 * KIB))
        .containsExactly(PINNED_SMALL);
  }

  private static final int[] PINNED_DEFAULTS = {
    83233, 146645, 213229, 304241, 382147, 424288, 495894, 565414, 657434, 714788, 818664, 896879,
    988055, 1024579, 1048576
  };

  private static final int[] PINNED_SMALL = {
    1388, 2981, 4267, 5369, 6649, 7701, 8874, 9950, 11166, 12305, 13323, 14382, 15762, 16384
  };

  @Test
  void sizesAreValidatedWithClearMessages() {
    assertThat(ContentChunker.defaults().minSize()).isEqualTo(16 * KIB);
    assertThat(ContentChunker.defaults().avgSize()).isEqualTo(64 * KIB);
    assertThat(ContentChunker.defaults().maxSize()).isEqualTo(256 * KIB);
    assertThat(ContentChunker.of(64, 128, MIB).maxSize()).isEqualTo(MIB);
    assertThatThrownBy(() -> ContentChunker.of(63, 128, 256))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("min chunk size 63 is below 64 bytes");
    assertThatThrownBy(() -> ContentChunker.of(1024, 1024, 4096))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("average chunk size 1024 must be above the min, 1024");
    assertThatThrownBy(() -> ContentChunker.of(1024, 3000, 4096))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("average chunk size 3000 is not a power of two");
    assertThatThrownBy(() -> ContentChunker.of(1024, 2048, 2048))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max chunk size 2048 must be above the average, 2048");
    assertThatThrownBy(() -> ContentChunker.of(1024, 2048, MIB + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max chunk size 1048577 is above 1048576 bytes (1 MiB)");
  }

  private static void assertCovers(ContentChunker chunker, int[] ends, int from, int to) {
    if (from == to) {
      assertThat(ends).isEmpty();
      return;
    }
    assertThat(ends[ends.length - 1]).isEqualTo(to);
    int start = from;
    for (int i = 0; i < ends.length; i++) {
      int length = ends[i] - start;
      assertThat(length).isPositive().isLessThanOrEqualTo(chunker.maxSize());
      if (i < ends.length - 1) {
        assertThat(length).isGreaterThanOrEqualTo(chunker.minSize());
      }
      start = ends[i];
    }
  }

  /** The fraction of {@code after}'s chunk hashes that {@code before} also has. */
  private static double sharedFraction(List<ChunkRef> before, List<ChunkRef> after) {
    Set<String> known = before.stream().map(ChunkRef::hex).collect(Collectors.toSet());
    return (double) after.stream().filter(c -> known.contains(c.hex())).count() / after.size();
  }

  private static int[] fixedEnds(int length, int size) {
    int[] ends = new int[(length + size - 1) / size];
    for (int i = 0; i < ends.length; i++) {
      ends[i] = Math.min(length, (i + 1) * size);
    }
    return ends;
  }

  private static byte[] insert(byte[] data, int at, byte[] bytes) {
    byte[] out = new byte[data.length + bytes.length];
    System.arraycopy(data, 0, out, 0, at);
    System.arraycopy(bytes, 0, out, at, bytes.length);
    System.arraycopy(data, at, out, at + bytes.length, data.length - at);
    return out;
  }

  private static byte[] delete(byte[] data, int at, int count) {
    byte[] out = new byte[data.length - count];
    System.arraycopy(data, 0, out, 0, at);
    System.arraycopy(data, at + count, out, at, data.length - at - count);
    return out;
  }

  private static byte[] overwrite(byte[] data, int at, byte[] bytes) {
    byte[] out = data.clone();
    System.arraycopy(bytes, 0, out, at, bytes.length);
    return out;
  }

  static byte[] randomBytes(int length, long seed) {
    byte[] data = new byte[length];
    new Random(seed).nextBytes(data);
    return data;
  }
}
