package io.cutpoint.ops.config;

import io.cutpoint.server.rollback.RollbackPolicy;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the textual values of settings: sizes like {@code 64MiB}, bounded integers. Durations:
 * {@link io.cutpoint.util.Durations}.
 */
public final class Values {

  private static final Pattern BYTES = Pattern.compile("(\\d+)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

  private Values() {}

  /**
   * A size in bytes: a whole number, optionally with {@code KiB}, {@code MiB}, {@code GiB} (or KB,
   * MB, GB: 1000s).
   */
  public static long bytes(String text) {
    Matcher m = BYTES.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw bad(text, "a size (e.g. 1048576, 512KiB, 64MiB)");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    long factor =
        switch (unit) {
          case "b" -> 1L;
          case "kb" -> 1000L;
          case "k", "kib" -> 1024L;
          case "mb" -> 1000_000L;
          case "m", "mib" -> 1024L * 1024;
          case "gb" -> 1000_000_000L;
          default -> 1024L * 1024 * 1024;
        };
    try {
      return Math.multiplyExact(n, factor);
    } catch (ArithmeticException e) {
      throw bad(text, "a size that fits in 63 bits");
    }
  }

  /** A size as {@link #bytes} reads it back: {@code 256MiB}, {@code 64KiB}, {@code 1000}. */
  public static String format(long bytes) {
    String[] units = {"GiB", "MiB", "KiB"};
    long[] factors = {1L << 30, 1L << 20, 1L << 10};
    for (int i = 0; i < units.length; i++) {
      if (bytes != 0 && bytes % factors[i] == 0) {
        return bytes / factors[i] + units[i];
      }
    }
    return Long.toString(bytes);
  }

  /**
   * A rollback policy as {@code rollback-policy} reads it: {@code none}, {@code latest-complete}.
   */
  public static String format(RollbackPolicy policy) {
    return policy.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** A rollback policy: {@code none}, {@code latest-complete} (or {@code latest_complete}). */
  public static RollbackPolicy rollbackPolicy(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "none" -> RollbackPolicy.NONE;
      case "latest-complete", "latest_complete" -> RollbackPolicy.LATEST_COMPLETE;
      default -> throw bad(text, "a rollback policy (none, latest-complete)");
    };
  }

  /** A host name or address without spaces or slashes; brackets around an IPv6 address dropped. */
  public static String host(String text) {
    if (text.chars().anyMatch(c -> c <= ' ' || c >= 0x7f) || text.contains("/")) {
      throw bad(text, "a host name or address");
    }
    return text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
  }

  /** {@code HOST:PORT}, the host as {@link #host} reads it and the port in 1..65535. */
  public static String hostPort(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0) {
      throw bad(text, "HOST:PORT");
    }
    String host = text.substring(0, colon);
    host(host);
    integer(text.substring(colon + 1), 1, 65535);
    return text;
  }

  /** An absolute http or https URL. */
  public static java.net.URI url(String text) {
    try {
      java.net.URI uri = new java.net.URI(text);
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          || uri.getHost() == null) {
        throw bad(text, "an http:// or https:// URL");
      }
      return uri;
    } catch (java.net.URISyntaxException e) {
      throw bad(text, "an http:// or https:// URL");
    }
  }

  /** {@code true} or {@code false}. */
  public static boolean bool(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw bad(text, "true or false");
    };
  }

  /** An integer within {@code [min, max]}. */
  public static int integer(String text, int min, int max) {
    int n;
    try {
      n = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw bad(text, "a whole number");
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException("'" + text + "' is out of range " + min + ".." + max);
    }
    return n;
  }

  private static IllegalArgumentException bad(String text, String expected) {
    return new IllegalArgumentException("'" + text + "' is not " + expected);
  }
}
