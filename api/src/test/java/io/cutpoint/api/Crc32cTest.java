package io.cutpoint.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {

  private static final byte[] CHECK = "123456789".getBytes(StandardCharsets.US_ASCII);

  @Test
  void matchesTheStandardCheckValue() {
    // the check value of CRC-32C (Castagnoli) over "123456789"
    assertThat(Crc32c.of(CHECK)).isEqualTo(0xe3069283);
    assertThat(Crc32c.hex(Crc32c.of(CHECK))).isEqualTo("e3069283");
  }

  @Test
  void aRangeIsTheCrcOfThoseBytesOnly() {
    byte[] padded = new byte[CHECK.length + 4];
    System.arraycopy(CHECK, 0, padded, 2, CHECK.length);
    assertThat(Crc32c.of(padded, 2, CHECK.length)).isEqualTo(Crc32c.of(CHECK));
    assertThat(Crc32c.of(padded)).isNotEqualTo(Crc32c.of(CHECK));
  }

  @Test
  void aRunningCrcGivesTheSameValueAsOneCall() {
    CRC32C running = new CRC32C();
    running.update(CHECK, 0, 4);
    running.update(CHECK, 4, CHECK.length - 4);
    assertThat(Crc32c.value(running)).isEqualTo(Crc32c.of(CHECK));
  }

  @Test
  void hexKeepsLeadingZeros() {
    assertThat(Crc32c.hex(0x0000abcd)).isEqualTo("0000abcd");
  }
}
