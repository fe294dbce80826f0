package io.cutpoint.client.chunks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ChunkRefTest {

  private static byte[] hash(int first) {
    byte[] h = new byte[32];
    h[0] = (byte) first;
    h[31] = (byte) 0xab;
    return h;
  }

  @Test
  void equalByValueIncludingTheHashBytes() {
    ChunkRef a = new ChunkRef(0, 10, hash(1), 42);
    ChunkRef b = new ChunkRef(0, 10, hash(1), 42);
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(new ChunkRef(0, 10, hash(2), 42));
    assertThat(a).isNotEqualTo(new ChunkRef(1, 10, hash(1), 42));
    assertThat(a).isNotEqualTo(new ChunkRef(0, 11, hash(1), 42));
    assertThat(a).isNotEqualTo(new ChunkRef(0, 10, hash(1), 43));
  }

  @Test
  void hexIsSixtyFourLowerCaseDigits() {
    ChunkRef c = new ChunkRef(0, 10, hash(0xfe), -1);
    assertThat(c.hex()).isEqualTo("fe" + "00".repeat(30) + "ab");
    assertThat(c.toString()).contains(c.hex()).contains("crc32c=ffffffff");
  }

  @Test
  void theHashCannotBeChangedFromOutside() {
    byte[] h = hash(1);
    ChunkRef c = new ChunkRef(0, 10, h, 0);
    h[0] = 7;
    c.sha256()[0] = 7;
    assertThat(c.sha256()).isEqualTo(hash(1));
  }

  @Test
  void aHashOfAnotherLengthOrANegativeRangeIsRefused() {
    assertThatThrownBy(() -> new ChunkRef(0, 10, new byte[20], 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a SHA-256 has 32 bytes, not 20");
    assertThatThrownBy(() -> new ChunkRef(-1, 10, hash(1), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunk at offset -1 with length 10 is out of range");
    assertThatThrownBy(() -> new ChunkRef(Integer.MAX_VALUE, 1, hash(1), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
