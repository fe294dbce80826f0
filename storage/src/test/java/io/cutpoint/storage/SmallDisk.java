package io.cutpoint.storage;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A small tmpfs mounted on a test's temporary directory, to fill the disk for real. Needs {@code
 * mount} rights (root); elsewhere the test that uses it is skipped by an assumption. Used by the
 * store's tests and by the coordinator's (health on a full disk).
 */
public final class SmallDisk implements AutoCloseable {
  /** The mount point. */
  public final Path root;

  private final Path filler;

  private SmallDisk(Path root) {
    this.root = root;
    this.filler = root.resolve("filler");
  }

  public static SmallDisk mount(Path dir, int megabytes) throws Exception {
    Process p =
        new ProcessBuilder(
                "mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", dir.toString())
            .redirectErrorStream(true)
            .start();
    boolean done = p.waitFor(30, TimeUnit.SECONDS);
    Assumptions.assumeTrue(
        done && p.exitValue() == 0,
        "mounting a tmpfs needs root: " + new String(p.getInputStream().readAllBytes()));
    return new SmallDisk(dir);
  }

  /** Writes a file until the disk is full. */
  public void fill() throws IOException {
    byte[] block = new byte[64 << 10];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(block);
      }
    } catch (IOException full) {
      if (!String.valueOf(full.getMessage()).contains("No space left")) {
        throw full;
      }
    }
  }

  public void free() throws IOException {
    Files.deleteIfExists(filler);
  }

  @Override
  public void close() throws Exception {
    Process p = new ProcessBuilder("umount", root.toString()).redirectErrorStream(true).start();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(
          "umount " + root + ": " + new String(p.getInputStream().readAllBytes()));
    }
  }
}
