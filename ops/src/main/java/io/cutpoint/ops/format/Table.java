package io.cutpoint.ops.format;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table: a header row and data rows, columns padded to their widest cell, numbers
 * (columns declared right-aligned) flush right, two spaces between columns, no trailing blanks.
 */
public final class Table {

  private final String[] header;
  private final boolean[] rightAligned;
  private final List<String[]> rows = new ArrayList<>();

  /** Columns whose name starts with {@code >} are right-aligned; the {@code >} is not shown. */
  public Table(String... columns) {
    header = new String[columns.length];
    rightAligned = new boolean[columns.length];
    for (int i = 0; i < columns.length; i++) {
      rightAligned[i] = columns[i].startsWith(">");
      header[i] = rightAligned[i] ? columns[i].substring(1) : columns[i];
    }
  }

  public Table row(Object... cells) {
    if (cells.length != header.length) {
      throw new IllegalArgumentException(
          "expected "
              + header.length
              + " cells, got "
              + cells.length
              + ": "
              + Arrays.toString(cells));
    }
    String[] row = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      row[i] = cells[i] == null ? "" : String.valueOf(cells[i]);
    }
    rows.add(row);
    return this;
  }

  public int size() {
    return rows.size();
  }

  /** The table as lines, each ending with a newline. */
  public String render() {
    int[] width = new int[header.length];
    for (int i = 0; i < header.length; i++) {
      width[i] = header[i].length();
      for (String[] r : rows) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    StringBuilder b = new StringBuilder();
    line(b, header, width);
    for (String[] r : rows) {
      line(b, r, width);
    }
    return b.toString();
  }

  private void line(StringBuilder b, String[] cells, int[] width) {
    StringBuilder l = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      if (i > 0) {
        l.append("  ");
      }
      String pad = " ".repeat(width[i] - cells[i].length());
      l.append(rightAligned[i] ? pad + cells[i] : cells[i] + pad);
    }
    int end = l.length();
    while (end > 0 && l.charAt(end - 1) == ' ') {
      end--;
    }
    b.append(l, 0, end).append('\n');
  }
}
