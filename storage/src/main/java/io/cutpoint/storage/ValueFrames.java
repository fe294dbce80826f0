package io.cutpoint.storage;

import io.cutpoint.api.Crc32cCombine;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * The framing of every stored value: one format byte ({@value #FORMAT}), then the CRC32C (4 bytes,
 * big-endian) of the key followed by the payload, then the payload. Covering the key too means a
 * value that ends up under another key fails its check as surely as a flipped bit.
 */
final class ValueFrames {
  static final byte FORMAT = 1;
  static final int HEADER = 5;

  private ValueFrames() {}

  static byte[] wrap(byte[] key, byte[] payload) {
    return frame(crc(key, payload, 0, payload.length), payload);
  }

  /**
   * ValueFrames {@code payload} whose CRC32C {@code payloadCrc} the caller has already checked: the
   * frame's checksum is derived from it, without reading the payload again. A wrong {@code
   * payloadCrc} makes a frame that fails its check on every read.
   */
  static byte[] wrap(byte[] key, byte[] payload, int payloadCrc) {
    int keyCrc = crc(key, payload, 0, 0);
    return frame(Crc32cCombine.combine(keyCrc, payloadCrc, payload.length), payload);
  }

  private static byte[] frame(int crc, byte[] payload) {
    return ByteBuffer.allocate(HEADER + payload.length)
        .put(FORMAT)
        .putInt(crc)
        .put(payload)
        .array();
  }

  /**
   * Checks a stored value and returns its payload.
   *
   * @param piece names the piece in the error, e.g. "snapshot 7, worker w1, state chunk 3"
   * @throws CorruptionException if the value is truncated, of an unknown format, or fails its CRC
   */
  static byte[] unwrap(byte[] key, byte[] value, Supplier<String> piece) {
    checkFrame(key, value, value.length, piece);
    return Arrays.copyOfRange(value, HEADER, value.length);
  }

  /**
   * Checks, in place, the value held in the first {@code length} bytes of {@code value}, and that
   * its payload's own CRC32C is {@code payloadCrc}: the frame's checksum must be the one derived
   * from it ({@link #wrap(byte[], byte[], int)}), so the payload is read once for both checks.
   * Returns the payload's length; the payload starts at {@link #HEADER}.
   *
   * @throws CorruptionException as {@link #unwrap}, or if the payload's CRC32C is not {@code
   *     payloadCrc}
   */
  static int check(byte[] key, byte[] value, int length, int payloadCrc, Supplier<String> piece) {
    checkFrame(key, value, length, piece);
    int payloadLength = length - HEADER;
    int stored = ByteBuffer.wrap(value, 1, 4).getInt();
    int expected = Crc32cCombine.combine(crc(key, value, 0, 0), payloadCrc, payloadLength);
    if (stored != expected) {
      throw new CorruptionException(
          String.format(
              "%s: its bytes do not have the CRC32C %08x listed for them",
              piece.get(), payloadCrc));
    }
    return payloadLength;
  }

  /**
   * Checks a stored value, as {@link #unwrap} does, and returns its payload's own CRC32C, without
   * copying the payload (it starts at {@link #HEADER}): the payload is read once, for both.
   *
   * @throws CorruptionException as {@link #unwrap}
   */
  static int payloadCrc(byte[] key, byte[] value, Supplier<String> piece) {
    checkHeader(value, value.length, piece);
    int payloadLength = value.length - HEADER;
    int payloadCrc = io.cutpoint.api.Crc32c.of(value, HEADER, payloadLength);
    int stored = ByteBuffer.wrap(value, 1, 4).getInt();
    int actual = Crc32cCombine.combine(crc(key, value, 0, 0), payloadCrc, payloadLength);
    if (stored != actual) {
      throw new CorruptionException(
          String.format(
              "%s: CRC32C mismatch (stored %08x, computed %08x over %d bytes)",
              piece.get(), stored, actual, payloadLength));
    }
    return payloadCrc;
  }

  private static void checkFrame(byte[] key, byte[] value, int length, Supplier<String> piece) {
    checkHeader(value, length, piece);
    int stored = ByteBuffer.wrap(value, 1, 4).getInt();
    int actual = crc(key, value, HEADER, length - HEADER);
    if (stored != actual) {
      throw new CorruptionException(
          String.format(
              "%s: CRC32C mismatch (stored %08x, computed %08x over %d bytes)",
              piece.get(), stored, actual, length - HEADER));
    }
  }

  /** The value held in the first {@code length} bytes of {@code value} has a header we know. */
  private static void checkHeader(byte[] value, int length, Supplier<String> piece) {
    if (length < HEADER) {
      throw new CorruptionException(
          piece.get() + ": stored value is truncated (" + length + " bytes)");
    }
    if (value[0] != FORMAT) {
      throw new CorruptionException(
          piece.get() + ": unknown value format " + (value[0] & 0xFF) + " (corrupt header?)");
    }
  }

  private static int crc(byte[] key, byte[] payload, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(key);
    crc.update(payload, offset, length);
    return (int) crc.getValue();
  }
}
