package io.cutpoint.client.chunks;

import io.cutpoint.api.Crc32c;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One chunk of a state: where it lies and what it holds. The SHA-256 names the chunk's content (two
 * chunks with the same hash are the same bytes, wherever they lie); the CRC32C is the protocol's
 * cheap check of a transfer ({@link Crc32c}). Equal by value, the hash included.
 *
 * @param offset where the chunk starts in the state
 * @param length how many bytes it has
 * @param sha256 the SHA-256 of those bytes, 32 bytes; the record keeps its own copy
 * @param crc32c the CRC32C of those bytes, as the protocol carries it
 */
@SuppressWarnings("ArrayRecordComponent") // copied in and out, compared by value
public record ChunkRef(int offset, int length, byte[] sha256, int crc32c) {

  /** Bytes in a SHA-256. */
  public static final int SHA256_BYTES = 32;

  /**
   * @throws IllegalArgumentException if the offset or length is negative, their sum overflows, or
   *     the hash is not 32 bytes
   */
  public ChunkRef {
    Objects.requireNonNull(sha256, "sha256");
    if (offset < 0 || length < 0 || length > Integer.MAX_VALUE - offset) {
      throw new IllegalArgumentException(
          "chunk at offset " + offset + " with length " + length + " is out of range");
    }
    if (sha256.length != SHA256_BYTES) {
      throw new IllegalArgumentException(
          "a SHA-256 has " + SHA256_BYTES + " bytes, not " + sha256.length);
    }
    sha256 = sha256.clone();
  }

  /** The SHA-256 of the chunk, a copy. */
  @Override
  public byte[] sha256() {
    return sha256.clone();
  }

  /** Where the chunk ends in the state (exclusive). */
  public int end() {
    return offset + length;
  }

  /** The SHA-256 as 64 lower-case hex digits. */
  public String hex() {
    return HexFormat.of().formatHex(sha256);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChunkRef c
        && offset == c.offset
        && length == c.length
        && crc32c == c.crc32c
        && Arrays.equals(sha256, c.sha256);
  }

  @Override
  public int hashCode() {
    return 31 * Objects.hash(offset, length, crc32c) + Arrays.hashCode(sha256);
  }

  @Override
  public String toString() {
    return "ChunkRef[offset="
        + offset
        + ", length="
        + length
        + ", sha256="
        + hex()
        + ", crc32c="
        + Crc32c.hex(crc32c)
        + "]";
  }
}
