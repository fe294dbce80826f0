package io.cutpoint.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The shared secret that callers of the Admin service present as {@code authorization: Bearer
 * <token>}. Its {@link #toString()} never shows the secret, so it can sit in a config record that
 * gets logged.
 */
public final class AdminToken {

  private final byte[] secret;

  private AdminToken(byte[] secret) {
    this.secret = secret;
  }

  /**
   * @param token the secret; surrounding whitespace (a file's trailing newline) is dropped
   * @throws IllegalArgumentException if it is empty or has whitespace or control characters inside
   */
  public static AdminToken of(String token) {
    String t = token == null ? "" : token.strip();
    if (t.isEmpty()) {
      throw new IllegalArgumentException("the admin token is empty");
    }
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        throw new IllegalArgumentException(
            "the admin token must not contain whitespace or control characters");
      }
    }
    return new AdminToken(t.getBytes(StandardCharsets.UTF_8));
  }

  /** True if {@code presented} is this token; takes the same time wherever the two differ. */
  public boolean matches(String presented) {
    if (presented == null) {
      return false;
    }
    return MessageDigest.isEqual(secret, presented.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AdminToken other && MessageDigest.isEqual(secret, other.secret);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(secret);
  }

  @Override
  public String toString() {
    return "AdminToken[redacted]";
  }
}
