package io.cutpoint.ops.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directory trees that a command deletes when it is done with them. */
public final class ScratchDirs {

  private ScratchDirs() {}

  /**
   * Deletes {@code dir} and everything under it. A failure is reported on stderr, not thrown: it
   * runs while shutting down, where the caller's own outcome matters more.
   */
  public static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("cutpoint: could not delete " + dir + ": " + e.getMessage());
    }
  }
}
