package io.cutpoint.ops.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the textual values of settings: durations like {@code 500ms}, sizes like {@code 64MiB}. */
public final class Values {

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)?");
  private static final Pattern BYTES = Pattern.compile("(\\d+)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

  private Values() {}

  /**
   * A duration: a whole number with a unit ({@code ms}, {@code s}, {@code m}, {@code h},
   * {@code d}), a plain {@code 0}, or ISO-8601 ({@code PT1.5S}).
   */
  public static Duration duration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.startsWith("pt") || t.startsWith("p")) {
      try {
        return nonNegative(Duration.parse(t.toUpperCase(Locale.ROOT)), text);
      } catch (DateTimeParseException e) {
        throw bad(text, "a duration (e.g. 500ms, 10s, 1m)");
      }
    }
    Matcher m = DURATION.matcher(t);
    if (!m.matches()) {
      throw bad(text, "a duration (e.g. 500ms, 10s, 1m)");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2);
    if (unit == null) {
      if (n != 0) {
        throw bad(text, "a duration with a unit (e.g. 500ms, 10s, 1m)");
      }
      return Duration.ZERO;
    }
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  /** A size in bytes: a whole number, optionally with {@code KiB}, {@code MiB}, {@code GiB} (or KB, MB, GB: 1000s). */
  public static long bytes(String text) {
    Matcher m = BYTES.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw bad(text, "a size (e.g. 1048576, 512KiB, 64MiB)");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    long factor = switch (unit) {
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

  /** Human-readable rendering of a duration ({@code 1.5s}, {@code 250ms}). */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0";
    }
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  private static Duration nonNegative(Duration d, String text) {
    if (d.isNegative()) {
      throw bad(text, "a duration that is not negative");
    }
    return d;
  }

  private static IllegalArgumentException bad(String text, String expected) {
    return new IllegalArgumentException("'" + text + "' is not " + expected);
  }
}
