package io.cutpoint.ops.demo;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The size of the terminal the demo draws in, in character cells.
 *
 * @param columns cells per row
 * @param rows rows
 */
record TerminalSize(int columns, int rows) {

  /** What a terminal of unknown size is taken to be. */
  static final TerminalSize DEFAULT = new TerminalSize(80, 24);

  TerminalSize {
    columns = Math.max(20, columns);
    rows = Math.max(8, rows);
  }

  /**
   * Asks the terminal ({@code stty size} on {@code /dev/tty}); else {@code COLUMNS} and {@code
   * LINES}; else {@link #DEFAULT}. Blocks for at most a second.
   */
  static TerminalSize detect() {
    File tty = new File("/dev/tty");
    if (tty.canRead()) {
      try {
        Process p =
            new ProcessBuilder("stty", "size")
                .redirectInput(tty)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String answer =
            new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        if (p.waitFor(1, TimeUnit.SECONDS) && p.exitValue() == 0) {
          TerminalSize s = parseStty(answer);
          if (s != null) {
            return s;
          }
        }
        p.destroy();
      } catch (IOException e) {
        // No stty: fall back to the environment.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return fromEnvironment(System.getenv("COLUMNS"), System.getenv("LINES"));
  }

  /**
   * {@code "24 80"} (rows, then columns) as {@code stty size} prints it; null if it is not that.
   */
  static TerminalSize parseStty(String answer) {
    List<String> parts = List.of(answer.trim().split("\\s+"));
    if (parts.size() != 2) {
      return null;
    }
    try {
      int rows = Integer.parseInt(parts.get(0));
      int columns = Integer.parseInt(parts.get(1));
      return rows > 0 && columns > 0 ? new TerminalSize(columns, rows) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** From {@code COLUMNS} and {@code LINES}, each falling back to {@link #DEFAULT}'s. */
  static TerminalSize fromEnvironment(String columns, String lines) {
    return new TerminalSize(number(columns, DEFAULT.columns), number(lines, DEFAULT.rows));
  }

  private static int number(String s, int fallback) {
    try {
      return s == null ? fallback : Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
