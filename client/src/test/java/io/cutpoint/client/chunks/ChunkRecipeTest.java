package io.cutpoint.client.chunks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.Crc32c;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkRecipeTest {

  @Test
  void eachChunkCarriesTheSha256AndCrc32cOfItsSlice() throws Exception {
    byte[] state = ContentChunkerTest.randomBytes(3 << 20, 7);
    ContentChunker chunker = ContentChunker.defaults();

    List<ChunkRef> recipe = ChunkRecipe.of(state, chunker);

    int[] ends = chunker.cut(state);
    assertThat(recipe).hasSize(ends.length);
    int start = 0;
    for (int i = 0; i < ends.length; i++) {
      ChunkRef chunk = recipe.get(i);
      byte[] slice = Arrays.copyOfRange(state, start, ends[i]);
      assertThat(chunk.offset()).isEqualTo(start);
      assertThat(chunk.length()).isEqualTo(slice.length);
      assertThat(chunk.end()).isEqualTo(ends[i]);
      assertThat(chunk.sha256()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(slice));
      assertThat(chunk.crc32c()).isEqualTo(Crc32c.of(slice));
      start = ends[i];
    }
  }

  @Test
  void givenEndsAreUsedAsTheyAre() throws Exception {
    byte[] state = ContentChunkerTest.randomBytes(10, 8);
    List<ChunkRef> recipe = ChunkRecipe.of(state, new int[] {1, 4, 10});
    assertThat(recipe).extracting(ChunkRef::offset).containsExactly(0, 1, 4);
    assertThat(recipe).extracting(ChunkRef::length).containsExactly(1, 3, 6);
    assertThat(recipe.get(1).hex())
        .isEqualTo(
            HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-256").digest(Arrays.copyOfRange(state, 1, 4))));
  }

  @Test
  void anEmptyStateHasAnEmptyRecipe() {
    assertThat(ChunkRecipe.of(new byte[0], ContentChunker.defaults())).isEmpty();
    assertThat(ChunkRecipe.of(new byte[0], new int[0])).isEmpty();
  }

  @Test
  void endsThatDoNotCutTheWholeStateAreRefused() {
    byte[] state = new byte[10];
    assertThatThrownBy(() -> ChunkRecipe.of(state, new int[] {4, 9}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the last end is 9 but the state has 10 bytes");
    assertThatThrownBy(() -> ChunkRecipe.of(state, new int[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the last end is 0 but the state has 10 bytes");
    assertThatThrownBy(() -> ChunkRecipe.of(state, new int[] {4, 4, 10}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("end 1 is 4, not above the one before, 4");
    assertThatThrownBy(() -> ChunkRecipe.of(state, new int[] {0, 10}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("end 0 is 0, not above the one before, 0");
    assertThatThrownBy(() -> ChunkRecipe.of(state, new int[] {12, 10}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("end 1 is 10, not above the one before, 12");
  }

  @Test
  void theRecipeIsUnmodifiable() {
    List<ChunkRef> recipe = ChunkRecipe.of(new byte[] {1, 2, 3}, new int[] {3});
    assertThatThrownBy(() -> recipe.remove(0)).isInstanceOf(UnsupportedOperationException.class);
  }
}
