package io.cutpoint.util;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write and read them: {@code 250ms}, {@code 1.5s}, {@code 1m30s}, {@code 2h},
 * a plain {@code 0}, or ISO-8601 ({@code PT1.5S}). Every duration Cutpoint reads or prints goes
 * through this class.
 *
 * <p>A parsed duration is never negative and fits in a {@code long} of nanoseconds (about 292
 * years), so nothing downstream ({@code toMillis}, {@code toNanos}, schedulers) can overflow.
 */
public final class Durations {

  /** The longest duration accepted: {@code Long.MAX_VALUE} nanoseconds. */
  public static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE);

  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h|d)");
  private static final Pattern PARTS =
      Pattern.compile("(?:\\d+(?:\\.\\d+)?(?:ns|us|µs|ms|s|m|h|d))+");
  private static final String EXAMPLES = "a duration (e.g. 250ms, 1.5s, 1m30s, 2h, PT10S)";

  private Durations() {}

  /**
   * Reads a duration.
   *
   * @throws IllegalArgumentException with a one-line message quoting {@code text} when it is not a
   *     duration, is negative, or is longer than {@link #MAX}
   */
  public static Duration parse(String text) {
    String t = text == null ? "" : text.trim().replace(" ", "");
    String lower = t.toLowerCase(Locale.ROOT);
    if (lower.equals("0")) {
      return Duration.ZERO;
    }
    Duration d;
    if (lower.startsWith("p") || lower.startsWith("-p")) {
      d = iso(text, t);
    } else if (PARTS.matcher(lower).matches()) {
      d = human(text, lower);
    } else if (lower.matches("\\d+(\\.\\d+)?")) {
      throw bad(text, "a duration with a unit (e.g. 500ms, 10s, 1m)");
    } else if (lower.startsWith("-")) {
      throw bad(text, "a duration that is not negative");
    } else {
      throw bad(text, EXAMPLES);
    }
    if (d.isNegative()) {
      throw bad(text, "a duration that is not negative");
    }
    if (d.compareTo(MAX) > 0) {
      throw tooLong(text);
    }
    return d;
  }

  /**
   * A duration for people: {@code 0s}, {@code 250ms}, {@code 1.5s}, {@code 1m30s}, {@code 2h},
   * {@code 26h3m}; {@link #parse} reads it back.
   */
  public static String format(Duration d) {
    if (d.isNegative()) {
      return "-" + format(d.negated());
    }
    if (d.isZero()) {
      return "0s";
    }
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      long nanos = d.toNanos();
      if (nanos % 1_000_000 == 0 || nanos >= 10_000_000) {
        return decimal(BigDecimal.valueOf(nanos, 6)) + "ms";
      }
      return nanos % 1000 == 0 || nanos >= 10_000
          ? decimal(BigDecimal.valueOf(nanos, 3)) + "us"
          : nanos + "ns";
    }
    StringBuilder b = new StringBuilder();
    long hours = d.toHours();
    long minutes = d.toMinutesPart();
    BigDecimal seconds =
        BigDecimal.valueOf(d.toSecondsPart()).add(BigDecimal.valueOf(d.toNanosPart(), 9));
    if (hours > 0) {
      b.append(hours).append('h');
    }
    if (minutes > 0) {
      b.append(minutes).append('m');
    }
    if (seconds.signum() > 0) {
      b.append(decimal(seconds)).append('s');
    }
    return b.length() == 0 ? "0s" : b.toString();
  }

  private static Duration iso(String text, String t) {
    try {
      return Duration.parse(t.toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException | ArithmeticException e) {
      throw bad(text, EXAMPLES);
    }
  }

  private static Duration human(String text, String lower) {
    BigDecimal nanos = BigDecimal.ZERO;
    Matcher m = PART.matcher(lower);
    while (m.find()) {
      nanos =
          nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(nanosPer(m.group(2)))));
    }
    BigDecimal whole = nanos.setScale(0, RoundingMode.HALF_UP);
    if (whole.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw tooLong(text);
    }
    return Duration.ofNanos(whole.longValueExact());
  }

  private static long nanosPer(String unit) {
    return switch (unit) {
      case "ns" -> 1L;
      case "us", "µs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      case "h" -> 3_600_000_000_000L;
      default -> 86_400_000_000_000L;
    };
  }

  private static String decimal(BigDecimal v) {
    BigDecimal s = v.stripTrailingZeros();
    return (s.scale() < 0 ? s.setScale(0) : s).toPlainString();
  }

  private static IllegalArgumentException tooLong(String text) {
    return new IllegalArgumentException(
        "'" + text.trim() + "' is too long (at most about 292 years)");
  }

  private static IllegalArgumentException bad(String text, String expected) {
    return new IllegalArgumentException(
        "'" + (text == null ? "" : text.trim()) + "' is not " + expected);
  }
}
