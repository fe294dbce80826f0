package io.cutpoint.client.chunks;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.util.List;

/**
 * An opaque state array cut into content-defined chunks ({@link ContentChunker}, or {@link
 * ArrayChunks}, which reads again only around what changed since the last capture).
 */
public final class ArrayContent implements StateContent {
  private final byte[] state;
  private final List<ChunkRef> recipe;

  /** Cuts and hashes {@code state} (not copied: the application does not change it). */
  public ArrayContent(byte[] state, ContentChunker chunker) {
    this(state, ChunkRecipe.of(state, chunker));
  }

  /** {@code state} cut as {@code recipe} says (whose chunks tile it). */
  public ArrayContent(byte[] state, List<ChunkRef> recipe) {
    this.state = state;
    this.recipe = recipe;
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
    return ChunkRecipe.crc32c(recipe);
  }

  @Override
  public ByteString chunk(int index) {
    ChunkRef c = recipe.get(index);
    return UnsafeByteOperations.unsafeWrap(state, c.offset(), c.length());
  }
}
