package io.cutpoint.ops.demo;

import java.util.ArrayList;
import java.util.List;

/**
 * What the live demo view draws in a terminal of a given size: the status lines, a blank line, then
 * as many of the newest events as the remaining rows hold. Every line is cut to the width, so none
 * wraps (a wrapped line would throw off the redraw, which moves the cursor up by lines). The last
 * row stays free for the cursor.
 */
final class LiveLayout {

  private LiveLayout() {}

  /**
   * @param status the status lines, first the most important
   * @param events the recent event lines, oldest first
   */
  static List<String> lines(List<String> status, List<String> events, TerminalSize size) {
    int usable = size.rows() - 1;
    List<String> out = new ArrayList<>();
    for (String s : status) {
      if (out.size() < usable) {
        out.add(cut(s, size.columns()));
      }
    }
    int room = usable - out.size() - 1;
    if (room > 0) {
      out.add("");
      for (String e : events.subList(Math.max(0, events.size() - room), events.size())) {
        out.add(cut(e, size.columns()));
      }
    }
    return out;
  }

  /**
   * {@code line} in at most {@code columns - 1} characters (the last cell would wrap on some
   * terminals).
   */
  static String cut(String line, int columns) {
    int max = columns - 1;
    return line.length() <= max ? line : line.substring(0, max - 3) + "...";
  }
}
