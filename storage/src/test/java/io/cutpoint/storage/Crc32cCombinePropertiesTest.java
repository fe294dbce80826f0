package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.Crc32cCombine;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * The CRC32C of a concatenation combined from its parts' CRCs is the CRC32C of the bytes, so a
 * frame and a whole state derived from an uploaded chunk's checked CRC are the ones computed over
 * the bytes; and a frame derived from a wrong CRC fails its check.
 */
class Crc32cCombinePropertiesTest {

  /** Lengths up to 9,000 share the cache's slots, so hits, misses and evictions all occur. */
  @Property(tries = 2000)
  void combiningTheCrcsOfTwoPartsGivesTheCrcOfTheirConcatenation(
      @ForAll @Size(max = 300) byte[] first, @ForAll @Size(max = 9000) byte[] second) {
    byte[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);

    assertThat(Crc32cCombine.combine(Crc32c.of(first), Crc32c.of(second), second.length))
        .isEqualTo(Crc32c.of(both));
  }

  @Property
  void aFrameDerivedFromThePayloadsCrcIsTheFrameComputedOverTheBytes(
      @ForAll @Size(max = 40) byte[] key, @ForAll @Size(max = 3000) byte[] payload) {
    assertThat(ValueFrames.wrap(key, payload, Crc32c.of(payload)))
        .isEqualTo(ValueFrames.wrap(key, payload));
  }

  @Property
  void aFrameDerivedFromAWrongCrcFailsItsCheckOnRead(
      @ForAll @Size(min = 1, max = 40) byte[] key, @ForAll @Size(max = 3000) byte[] payload) {
    byte[] framed = ValueFrames.wrap(key, payload, Crc32c.of(payload) ^ 1);
    assertThatThrownBy(() -> ValueFrames.unwrap(key, framed, () -> "the piece"))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("the piece: CRC32C mismatch");
  }
}
