package io.cutpoint.ops.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The command blocks of README.md and {@code src/site/markdown/*.md} marked as runnable: a line
 * {@code <!-- runnable -->} (or {@code <!-- runnable expect="TEXT" -->}, TEXT being something the
 * block must print) right before a {@code ```bash} block.
 */
final class RunnableBlocks {

  private static final Pattern MARKER =
      Pattern.compile("^<!-- runnable(?: expect=\"([^\"]*)\")? -->\\s*$");

  /**
   * One marked block: where it is, its commands, and what its output must contain ("" = nothing).
   */
  record Block(String file, int line, String script, String expect) {
    @Override
    public String toString() {
      return file + ":" + line;
    }
  }

  private RunnableBlocks() {}

  /** The marked blocks of README.md and every page of src/site/markdown, in file order. */
  static List<Block> ofRepository(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(root.resolve("README.md"));
    try (Stream<Path> pages = Files.list(root.resolve("src/site/markdown"))) {
      pages.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    List<Block> blocks = new ArrayList<>();
    for (Path f : files) {
      blocks.addAll(parse(root.relativize(f).toString(), Files.readAllLines(f)));
    }
    return blocks;
  }

  /**
   * The marked blocks of one file. A marker is a line of its own; one that is not followed by a
   * {@code ```bash} block, or whose block never closes, is an error: a marker must not silently
   * mark nothing. Prose that only mentions the marker is not one.
   */
  static List<Block> parse(String file, List<String> lines) {
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = MARKER.matcher(lines.get(i));
      if (!m.matches()) {
        if (lines.get(i).strip().startsWith("<!-- runnable")) {
          throw new IllegalArgumentException(
              file + ":" + (i + 1) + ": malformed marker: " + lines.get(i));
        }
        continue;
      }
      if (i + 1 >= lines.size() || !lines.get(i + 1).strip().equals("```bash")) {
        throw new IllegalArgumentException(
            file + ":" + (i + 1) + ": a runnable marker must be followed by a ```bash block");
      }
      StringBuilder script = new StringBuilder();
      int j = i + 2;
      while (j < lines.size() && !lines.get(j).strip().equals("```")) {
        script.append(lines.get(j)).append('\n');
        j++;
      }
      if (j >= lines.size()) {
        throw new IllegalArgumentException(
            file + ":" + (i + 2) + ": the runnable block never closes");
      }
      blocks.add(new Block(file, i + 2, script.toString(), m.group(1) == null ? "" : m.group(1)));
      i = j;
    }
    return blocks;
  }
}
