package io.cutpoint.api;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256, the name of a content-addressed state chunk. One digest per thread, reused: the JDK's
 * implementation uses the CPU's SHA instructions where it has them.
 */
public final class Sha256 {

  /** Length of a SHA-256 in bytes. */
  public static final int BYTES = 32;

  private static final ThreadLocal<MessageDigest> DIGEST =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("every Java platform has SHA-256", e);
            }
          });

  private Sha256() {}

  /** SHA-256 of {@code data}. */
  public static byte[] of(byte[] data) {
    return of(data, 0, data.length);
  }

  /** SHA-256 of {@code length} bytes of {@code data} from {@code offset}, without copying them. */
  public static byte[] of(byte[] data, int offset, int length) {
    MessageDigest digest = DIGEST.get();
    digest.update(data, offset, length);
    return digest.digest();
  }
}
