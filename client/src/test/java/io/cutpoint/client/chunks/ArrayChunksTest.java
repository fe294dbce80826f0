package io.cutpoint.client.chunks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Cutting again only around what changed gives exactly the chunks a whole cut gives, and reads
 * little when little changed.
 */
class ArrayChunksTest {

  private static byte[] edited(byte[] state, Random random, int edits, int maxRun) {
    byte[] copy = state.clone(); // a new array: the application's promise
    for (int e = 0; e < edits; e++) {
      int run = 1 + random.nextInt(Math.min(maxRun, copy.length));
      int at = random.nextInt(copy.length - run + 1);
      for (int i = 0; i < run; i++) {
        copy[at + i] = (byte) random.nextInt();
      }
    }
    return copy;
  }

  @Test
  void theChunksCutAroundTheChangesAreThoseOfAWholeCut() {
    ContentChunker small = ContentChunker.of(256, 1024, 4096);
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      byte[] state = new byte[1 + random.nextInt(200_000)];
      random.nextBytes(state);
      if (round % 10 == 0) {
        java.util.Arrays.fill(state, 0, state.length / 2, (byte) 0); // no cut points there
      }
      ArrayChunks chunks = new ArrayChunks(small);
      chunks.content(state);
      for (int step = 0; step < 4; step++) {
        state = edited(state, random, random.nextInt(6), 1 + random.nextInt(3000));
        StateContent content = chunks.content(state);
        assertThat(content.recipe())
            .as("round %d step %d", round, step)
            .isEqualTo(ChunkRecipe.of(state, small));
        assertThat(content.crc32c()).isEqualTo(io.cutpoint.api.Crc32c.of(state));
      }
    }
  }

  @Test
  void aSmallChangeIsReadAndHashedAloneAndTheSameArrayWhole() {
    ContentChunker chunker = ContentChunker.defaults();
    byte[] state = new byte[16 << 20];
    new Random(1).nextBytes(state);
    ArrayChunks chunks = new ArrayChunks(chunker);
    chunks.content(state);
    assertThat(chunks.bytesHashed()).isEqualTo(state.length);

    byte[] next = state.clone();
    next[5_000_000] ^= 1;
    StateContent content = chunks.content(next);
    assertThat(chunks.bytesHashed()).isPositive().isLessThanOrEqualTo(2L * chunker.maxSize());
    assertThat(content.recipe()).isEqualTo(ChunkRecipe.of(next, chunker));

    chunks.content(next.clone());
    assertThat(chunks.bytesHashed()).as("nothing changed").isZero();
    chunks.content(next);
    chunks.content(next);
    assertThat(chunks.bytesHashed()).as("the very same array: read whole").isEqualTo(next.length);
  }
}
