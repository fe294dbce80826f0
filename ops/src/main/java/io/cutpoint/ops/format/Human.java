package io.cutpoint.ops.format;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Renders numbers, sizes, durations and times for people. */
public final class Human {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);

  private Human() {}

  /** {@code 512 B}, {@code 1.5 KiB}, {@code 64.0 MiB}. */
  public static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }

  /** {@code 850us}, {@code 12.3ms}, {@code 1.52s}, {@code 2m05s}; empty for 0. */
  public static String micros(long us) {
    if (us <= 0) {
      return "";
    }
    if (us < 1000) {
      return us + "us";
    }
    if (us < 1_000_000) {
      return String.format(Locale.ROOT, "%.1fms", us / 1000.0);
    }
    if (us < 60_000_000) {
      return String.format(Locale.ROOT, "%.2fs", us / 1_000_000.0);
    }
    long s = us / 1_000_000;
    return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
  }

  /** Unix milliseconds as {@code 2026-01-02 03:04:05Z}; empty for 0. */
  public static String time(long unixMs) {
    return unixMs <= 0 ? "" : TIME.format(Instant.ofEpochMilli(unixMs));
  }

  /** Unix milliseconds as a clock time {@code 03:04:05.678} (UTC). */
  public static String clock(long unixMs) {
    return CLOCK.format(Instant.ofEpochMilli(unixMs));
  }

  /** How long ago, e.g. {@code 3s ago}; empty for 0. */
  public static String ago(long unixMs, long nowMs) {
    if (unixMs <= 0) {
      return "";
    }
    long d = Math.max(0, nowMs - unixMs);
    if (d < 1000) {
      return d + "ms ago";
    }
    if (d < 120_000) {
      return d / 1000 + "s ago";
    }
    if (d < 7_200_000) {
      return d / 60_000 + "m ago";
    }
    return d / 3_600_000 + "h ago";
  }

  /**
   * An enum constant without its type prefix, lower case: {@code SNAPSHOT_STATUS_COMPLETE} ->
   * {@code complete}.
   */
  public static String enumName(Enum<?> value, String prefix) {
    String n = value.name();
    if (n.startsWith(prefix)) {
      n = n.substring(prefix.length());
    }
    return n.toLowerCase(Locale.ROOT);
  }

  /**
   * Bytes as text when they are printable UTF-8-ish ASCII, otherwise as hex; cut to {@code max}
   * characters.
   */
  public static String payload(byte[] bytes, int max) {
    boolean printable = true;
    for (byte b : bytes) {
      if (b < 0x20 || b > 0x7e) {
        printable = false;
        break;
      }
    }
    StringBuilder s = new StringBuilder();
    if (printable) {
      s.append('"')
          .append(new String(bytes, java.nio.charset.StandardCharsets.US_ASCII))
          .append('"');
    } else {
      s.append("0x");
      for (byte b : bytes) {
        s.append(String.format(Locale.ROOT, "%02x", b));
        if (s.length() > max) {
          break;
        }
      }
    }
    return s.length() > max ? s.substring(0, Math.max(0, max - 3)) + "..." : s.toString();
  }
}
