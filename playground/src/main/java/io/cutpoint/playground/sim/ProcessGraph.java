package io.cutpoint.playground.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Processes {@code p1..pN} and undirected links between them; each link is two channels, one each
 * way, so a connected topology is strongly connected and a marker from any process reaches every
 * other.
 *
 * @param size number of processes, 2 to 12
 * @param links pairs {@code {a, b}} of 0-based process indexes, {@code a < b}, no duplicates
 */
public record ProcessGraph(int size, List<int[]> links) {

  public static final int MIN = 2;
  public static final int MAX = 12;

  public ProcessGraph {
    if (size < MIN || size > MAX) {
      throw new IllegalArgumentException(
          "a playground has " + MIN + " to " + MAX + " processes, got " + size);
    }
    List<int[]> copy = new ArrayList<>();
    for (int[] l : links) {
      int a = Math.min(l[0], l[1]);
      int b = Math.max(l[0], l[1]);
      if (a < 0 || b >= size || a == b) {
        throw new IllegalArgumentException(
            "no such link " + l[0] + "-" + l[1] + " among " + size + " processes");
      }
      for (int[] c : copy) {
        if (c[0] == a && c[1] == b) {
          throw new IllegalArgumentException("link " + a + "-" + b + " is given twice");
        }
      }
      copy.add(new int[] {a, b});
    }
    links = List.copyOf(copy);
  }

  /** The name of process {@code i} (0-based). */
  public static String name(int i) {
    return "p" + (i + 1);
  }

  /**
   * A named topology: {@code ring}, {@code mesh}, {@code line} or {@code random} (a random spanning
   * tree plus a third of the other links, from {@code seed}).
   */
  public static ProcessGraph named(String kind, int size, long seed) {
    List<int[]> links = new ArrayList<>();
    switch (kind) {
      case "ring", "line" -> {
        for (int i = 0; i + 1 < size; i++) {
          links.add(new int[] {i, i + 1});
        }
        if (kind.equals("ring") && size > 2) {
          links.add(new int[] {0, size - 1});
        }
      }
      case "mesh" -> {
        for (int a = 0; a < size; a++) {
          for (int b = a + 1; b < size; b++) {
            links.add(new int[] {a, b});
          }
        }
      }
      case "random" -> {
        Rng rng = new Rng(seed ^ 0x5DEECE66DL);
        boolean[][] linked = new boolean[size][size];
        for (int b = 1; b < size; b++) {
          int a = rng.nextInt(b);
          linked[a][b] = true;
        }
        for (int a = 0; a < size; a++) {
          for (int b = a + 1; b < size; b++) {
            if (linked[a][b] || rng.nextInt(3) == 0) {
              links.add(new int[] {a, b});
            }
          }
        }
      }
      default ->
          throw new IllegalArgumentException(
              "unknown topology " + kind + ": ring, mesh, line or random");
    }
    return new ProcessGraph(size, links);
  }

  /** Links written {@code "1-2,2-3"} (1-based, as the processes are named). */
  @SuppressWarnings(
      "StringSplitter") // empty parts are skipped; Guava's Splitter is not in the browser
  public static ProcessGraph drawn(int size, String links) {
    List<int[]> parsed = new ArrayList<>();
    for (String part : links.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      int dash = p.indexOf('-');
      if (dash < 0) {
        throw new IllegalArgumentException("a link is written a-b, got " + p);
      }
      try {
        parsed.add(
            new int[] {
              Integer.parseInt(p.substring(0, dash).trim()) - 1,
              Integer.parseInt(p.substring(dash + 1).trim()) - 1
            });
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "a link is written a-b with process numbers, got " + p, e);
      }
    }
    return new ProcessGraph(size, parsed);
  }

  /** Whether every process can reach every other. */
  public boolean connected() {
    boolean[] seen = new boolean[size];
    int[] stack = new int[size];
    int top = 0;
    stack[top++] = 0;
    seen[0] = true;
    int count = 1;
    while (top > 0) {
      int at = stack[--top];
      for (int[] l : links) {
        int other = l[0] == at ? l[1] : l[1] == at ? l[0] : -1;
        if (other >= 0 && !seen[other]) {
          seen[other] = true;
          count++;
          stack[top++] = other;
        }
      }
    }
    return count == size;
  }

  /** Peers of process {@code i}, by index. */
  public List<Integer> neighbours(int i) {
    List<Integer> out = new ArrayList<>();
    for (int[] l : links) {
      if (l[0] == i) {
        out.add(l[1]);
      } else if (l[1] == i) {
        out.add(l[0]);
      }
    }
    return out;
  }
}
