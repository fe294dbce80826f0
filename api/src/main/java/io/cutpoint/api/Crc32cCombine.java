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

  /** Slots of the cache of {@link #shift}: a power of two. */
  private static final int SHIFTS = 4096;

  /** Length (high half) and x^(8 * length) (low half); length 0 never matches a lookup. */
  private static final java.util.concurrent.atomic.AtomicLongArray SHIFT_CACHE =
      new java.util.concurrent.atomic.AtomicLongArray(SHIFTS);

  private Crc32cCombine() {}

  /**
   * The CRC32C of {@code first} followed by {@code second}.
   *
   * @param crc1 the CRC32C of {@code first}
   * @param crc2 the CRC32C of {@code second}
   * @param length2 the length of {@code second} in bytes
   */
  public static int combine(int crc1, int crc2, long length2) {
    return multiply(shift(length2), crc1) ^ crc2;
  }

  /**
   * x^(8n), from a small cache of recent lengths when {@code n} is in it. A stored state's chunks
   * keep their lengths from one snapshot to the next, so a commit, a read or a worker's capture
   * that combines thousands of chunk CRCs finds most lengths here; each costs then one
   * multiplication instead of one per bit set in {@code n}. An entry packs the length with its
   * value in one long, so a racing reader sees either a whole entry or another length's.
   */
  private static int shift(long n) {
    if (n <= 0 || n > Integer.MAX_VALUE) {
      return xToThe8n(n);
    }
    int slot = (int) (n ^ (n >>> 10)) & (SHIFTS - 1);
    long entry = SHIFT_CACHE.getOpaque(slot);
    if ((int) (entry >>> 32) == (int) n) {
      return (int) entry;
    }
    int value = xToThe8n(n);
    SHIFT_CACHE.setOpaque(slot, (n << 32) | (value & 0xffffffffL));
    return value;
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
