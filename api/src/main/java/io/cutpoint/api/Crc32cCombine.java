package io.cutpoint.api;

/**
 * The CRC32C of a concatenation from the CRC32Cs of its parts, without reading the bytes again
 * (zlib's {@code crc32_combine}, with the Castagnoli polynomial): {@code combine(crc(a), crc(b),
 * b.length) == crc(a || b)}. The store frames an uploaded chunk, and follows a worker's whole
 * state, from the chunk's CRC that the coordinator already checked; a worker and the coordinator
 * derive a content-addressed state's CRC from its chunks'.
 */
public final class Crc32cCombine {

  /** The Castagnoli polynomial, bit-reversed (as {@link java.util.zip.CRC32C} uses it). */
  private static final int POLY = 0x82F63B78;

  /** {@code X2N[k]} is x^(2^k) modulo the polynomial. */
  private static final int[] X2N = new int[32];

  static {
    int p = 1 << 30; // x^1
    X2N[0] = p;
    for (int k = 1; k < 32; k++) {
      p = multiply(p, p);
      X2N[k] = p;
    }
  }

  private Crc32cCombine() {}

  /**
   * The CRC32C of {@code first} followed by {@code second}.
   *
   * @param crc1 the CRC32C of {@code first}
   * @param crc2 the CRC32C of {@code second}
   * @param length2 the length of {@code second} in bytes
   */
  public static int combine(int crc1, int crc2, long length2) {
    return multiply(xToThe8n(length2), crc1) ^ crc2;
  }

  /** a * b modulo the polynomial (bit-reversed: bit 31 is x^0). */
  private static int multiply(int a, int b) {
    if (a == 0) {
      return 0;
    }
    int m = 1 << 31;
    int p = 0;
    while (true) {
      if ((a & m) != 0) {
        p ^= b;
        if ((a & (m - 1)) == 0) {
          break;
        }
      }
      m >>>= 1;
      b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
    }
    return p;
  }

  /** x^(8n) modulo the polynomial: the shift of a CRC past n zero bytes. */
  private static int xToThe8n(long n) {
    int p = 1 << 31; // x^0
    int k = 3;
    while (n != 0) {
      if ((n & 1) != 0) {
        p = multiply(X2N[k & 31], p);
      }
      n >>>= 1;
      k++;
    }
    return p;
  }
}
