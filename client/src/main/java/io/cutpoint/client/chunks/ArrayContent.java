package io.cutpoint.client.chunks;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.Crc32c;
import java.util.List;

/**
 * An opaque state array cut by a {@link ContentChunker}: every capture reads and hashes all of its
 * bytes once. A state that changes little between snapshots still uploads only the chunks around
 * each change; a {@link KeyedState} also skips reading the entries that did not change.
 */
public final class ArrayContent implements StateContent {
  private final byte[] state;
  private final List<ChunkRef> recipe;

  /** Cuts and hashes {@code state} (not copied: the application does not change it). */
  public ArrayContent(byte[] state, ContentChunker chunker) {
    this.state = state;
    this.recipe = ChunkRecipe.of(state, chunker);
  }

  @Override
  public List<ChunkRef> recipe() {
    return recipe;
  }

  @Override
  public long size() {
    return state.length;
  }

  @Override
  public int crc32c() {
    return Crc32c.of(state);
  }

  @Override
  public ByteString chunk(int index) {
    ChunkRef c = recipe.get(index);
    return UnsafeByteOperations.unsafeWrap(state, c.offset(), c.length());
  }
}
