package io.cutpoint.client.chunks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Cuts opaque state arrays with a {@link ContentChunker}, and remembers the last array and its
 * chunks so that the next capture reads and hashes only around what changed. One per worker; one
 * call at a time.
 *
 * <p>A new array of the same length is compared with the last one ({@link Arrays#mismatch}, which
 * reads both at memory speed): a chunk that ends before the first changed byte is the same chunk,
 * with the same cut (a cut depends only on the bytes of its chunk). From the chunk holding a change
 * the new array is cut again, until a cut falls where an old one did: from there both cuttings
 * start a chunk at the same byte, so they agree again up to the next change. Only the chunks cut
 * again are hashed. An array of another length, or the very array of the last capture, is cut and
 * hashed whole. This relies on the application's promise not to change an array once captured: a
 * captured array written in place later would make its old chunks look unchanged.
 */
public final class ArrayChunks {
  private final ContentChunker chunker;
  private byte[] last;
  private List<ChunkRef> lastRecipe = List.of();
  private long bytesHashed;

  public ArrayChunks(ContentChunker chunker) {
    this.chunker = chunker;
  }

  /** Bytes hashed by the last {@link #content} call. */
  public long bytesHashed() {
    return bytesHashed;
  }

  /** The chunks of {@code state}; reuses those of the last call's array where nothing changed. */
  public StateContent content(byte[] state) {
    List<ChunkRef> recipe;
    if (last == null || last == state || last.length != state.length) {
      int[] ends = chunker.cut(state);
      recipe = ChunkRecipe.of(state, ends);
      bytesHashed = state.length;
    } else {
      recipe = incremental(state);
    }
    last = state;
    lastRecipe = recipe;
    return new ArrayContent(state, recipe);
  }

  private List<ChunkRef> incremental(byte[] state) {
    int n = state.length;
    List<ChunkRef> out = new ArrayList<>(lastRecipe.size());
    long hashed = 0;
    int pos = 0; // where the next chunk starts, in both arrays
    int i = 0; // the old chunk that starts at pos
    while (pos < n) {
      int m = Arrays.mismatch(last, pos, n, state, pos, n);
      if (m < 0) {
        out.addAll(lastRecipe.subList(i, lastRecipe.size()));
        break;
      }
      int changed = pos + m;
      while (lastRecipe.get(i).end() <= changed) {
        out.add(lastRecipe.get(i++)); // ends before the change: the same chunk
      }
      pos = lastRecipe.get(i).offset();
      // cut again from here until a cut falls on an old one past the change
      while (true) {
        int end = chunker.cutOne(state, pos, n);
        out.add(ChunkRecipe.of(state, pos, end));
        hashed += end - pos;
        pos = end;
        while (i < lastRecipe.size() && lastRecipe.get(i).end() < pos) {
          i++;
        }
        if (pos == n) {
          break;
        }
        if (i < lastRecipe.size() && lastRecipe.get(i).end() == pos && pos > changed) {
          i++; // both cuttings start a chunk at pos
          break;
        }
      }
    }
    bytesHashed = hashed;
    return Collections.unmodifiableList(out);
  }
}
