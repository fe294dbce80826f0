package io.cutpoint.client.chunks;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.Sha256;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The recipe of a state: its chunks in order, each with its SHA-256 and CRC32C, so that the chunks
 * joined give back the state. Two recipes of nearby states share most of their hashes when the
 * chunks come from a {@link ContentChunker}. Hashes are computed over the caller's array, with no
 * copy of a chunk. Pure logic; any thread may call.
 */
public final class ChunkRecipe {

  private ChunkRecipe() {}

  /** The recipe of {@code state} cut by {@code chunker}; empty for an empty state. */
  public static List<ChunkRef> of(byte[] state, ContentChunker chunker) {
    return of(state, chunker.cut(state));
  }

  /** The chunk {@code state[from, to)}, hashed. */
  public static ChunkRef of(byte[] state, int from, int to) {
    Objects.checkFromToIndex(from, to, state.length);
    return new ChunkRef(
        from, to - from, Sha256.of(state, from, to - from), Crc32c.of(state, from, to - from));
  }

  /** The CRC32C of the state a recipe tiles, from its chunks' (the bytes are not read). */
  public static int crc32c(List<ChunkRef> recipe) {
    int crc = 0;
    for (ChunkRef c : recipe) {
      crc = io.cutpoint.api.Crc32cCombine.combine(crc, c.crc32c(), c.length());
    }
    return crc;
  }

  /**
   * The recipe of {@code state} cut at the given end offsets, as {@link ContentChunker#cut(byte[])}
   * returns them.
   *
   * @param ends strictly increasing, each above zero, the last equal to {@code state.length}; empty
   *     only for an empty state
   * @throws IllegalArgumentException if the ends do not cut all of {@code state} into non-empty
   *     chunks
   */
  public static List<ChunkRef> of(byte[] state, int[] ends) {
    Objects.requireNonNull(state, "state");
    int last = ends.length == 0 ? 0 : ends[ends.length - 1];
    if (last != state.length) {
      throw new IllegalArgumentException(
          "the last end is " + last + " but the state has " + state.length + " bytes");
    }
    int start = 0;
    for (int i = 0; i < ends.length; i++) {
      if (ends[i] <= start) {
        throw new IllegalArgumentException(
            "end " + i + " is " + ends[i] + ", not above the one before, " + start);
      }
      start = ends[i];
    }
    List<ChunkRef> chunks = new ArrayList<>(ends.length);
    start = 0;
    for (int end : ends) {
      int length = end - start;
      chunks.add(
          new ChunkRef(
              start, length, Sha256.of(state, start, length), Crc32c.of(state, start, length)));
      start = end;
    }
    return Collections.unmodifiableList(chunks);
  }
}
