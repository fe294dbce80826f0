package io.cutpoint.api;

import java.util.zip.CRC32C;

/**
 * CRC32C as the protocol carries it (the {@code crc32c} fields of {@code cutpoint.v1}, all {@code
 * fixed32}): the low 32 bits of {@link CRC32C} in a Java {@code int}. One definition for the worker
 * that computes it, the coordinator that checks it and the store that keeps it.
 */
public final class Crc32c {

  private Crc32c() {}

  /** The CRC32C of {@code length} bytes of {@code data} from {@code offset}. */
  public static int of(byte[] data, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(data, offset, length);
    return (int) crc.getValue();
  }

  /** The CRC32C of all of {@code data}. */
  public static int of(byte[] data) {
    return of(data, 0, data.length);
  }

  /** The value of a running {@link CRC32C}, as the protocol carries it. */
  public static int value(CRC32C running) {
    return (int) running.getValue();
  }

  /** Eight lower-case hex digits, as error messages show a CRC32C. */
  public static String hex(int crc) {
    return String.format("%08x", crc);
  }
}
