package io.cutpoint.client.session;

import java.util.zip.CRC32C;

/** CRC32C as the wire carries it: a {@code fixed32}, i.e. the low 32 bits in a Java int. */
final class Crc32c {

  private Crc32c() {}

  static int of(byte[] data, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(data, offset, length);
    return (int) crc.getValue();
  }

  static int of(byte[] data) {
    return of(data, 0, data.length);
  }

  static String hex(int crc) {
    return String.format("%08x", crc);
  }
}
