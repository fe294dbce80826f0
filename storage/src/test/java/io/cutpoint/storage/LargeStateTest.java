package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LargeStateTest {
  @TempDir Path dir;

  @Test
  void a64MiBStateRoundTripsStreamedInAJvmWithA32MiBHeap() throws Exception {
    Path stderr = dir.resolve("child.err");
    String line;
    int exit;
    try (ChildJvm child =
        new ChildJvm(
            LargeStateChild.class, List.of("-Xmx32m"), stderr, dir.resolve("db").toString())) {
      line = child.nextLine(Duration.ofMinutes(3));
      exit = child.waitFor(Duration.ofMinutes(3));
    }
    assertThat(line).as("child output; its stderr: %s", Files.readString(stderr)).startsWith("OK ");
    assertThat(exit).isZero();
    String[] f = line.split(" ");
    assertThat(Long.parseLong(f[1])).isEqualTo(64L << 20);
    System.out.printf(
        "64 MiB state: write+commit %s ms, streamed read %s ms, verify %s ms%n", f[2], f[3], f[4]);
  }
}
