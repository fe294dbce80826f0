package io.cutpoint.ops.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.ops.deploy.ExternalTool;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every block of README.md and the doc pages marked {@code <!-- runnable -->}, as a user would
 * paste it into bash at the repository root after {@code mvn package}, and checks that it exits 0
 * (and prints what its marker expects). So that it can run next to other coordinators, each block
 * gets its own free ports for 7070 and 9464 (in its text, and as {@code CUTPOINT_PORT}, {@code
 * CUTPOINT_METRICS_PORT} and {@code CUTPOINT_SERVER} for the defaults) and its own folder for
 * {@code /tmp/}; {@code cutpoint} on its PATH is {@code java -jar cutpoint.jar}. A block whose
 * server finds its port taken (picked free, then bound by another process first) runs once more,
 * with other ports. Background jobs ({@code &}) are stopped with SIGTERM when the block ends.
 */
class DocCommandsIT {

  private static final long TIMEOUT_SECONDS = 120;
  private static final String PREAMBLE =
      """
      set -euo pipefail
      stop_jobs() { local p; p=$(jobs -p); if [ -n "$p" ]; then kill $p 2>/dev/null || true; wait $p 2>/dev/null || true; fi; }
      trap stop_jobs EXIT
      """;

  private static final String JAR_SLOT = "<<cutpoint.jar>>";
  private static final String TMP_SLOT = "<<tmp>>";

  @TempDir Path tmp;

  @TestFactory
  Stream<DynamicTest> everyRunnableBlockRunsAsWritten() throws IOException {
    Path root =
        Path.of(System.getProperty("cutpoint.ops.dir")).toAbsolutePath().normalize().getParent();
    Path jar = Path.of(System.getProperty("cutpoint.jar")).toAbsolutePath();
    assertThat(jar).as("run after `package`").isRegularFile();
    List<RunnableBlocks.Block> blocks = RunnableBlocks.ofRepository(root);
    assertThat(blocks).isNotEmpty();
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    Path cutpoint = bin.resolve("cutpoint");
    Files.writeString(
        cutpoint,
        "#!/bin/sh\nexec '"
            + Path.of(System.getProperty("java.home"), "bin", "java")
            + "' -Xmx512m -jar '"
            + jar
            + "' \"$@\"\n");
    Files.setPosixFilePermissions(cutpoint, PosixFilePermissions.fromString("rwxr-xr-x"));
    return blocks.stream()
        .map(b -> DynamicTest.dynamicTest(b.toString(), () -> run(root, jar, bin, b)));
  }

  private void run(Path root, Path jar, Path bin, RunnableBlocks.Block block) throws Exception {
    if (block.script().contains("promtool ")) {
      ExternalTool.require("promtool", "apt-get install prometheus");
    }
    Run r = runOnce(root, jar, bin, block, 1);
    if ((!r.ended() || r.exitCode() != 0) && r.output().contains("address already in use")) {
      // The free ports were picked before the block's server bound them: another process may
      // have taken one in between. A second run gets other ports.
      r = runOnce(root, jar, bin, block, 2);
    }
    assertThat(r.ended())
        .as("%s still running after %d s; output:%n%s", block, TIMEOUT_SECONDS, r.output())
        .isTrue();
    assertThat(r.exitCode()).as("%s exit code; output:%n%s", block, r.output()).isZero();
    assertThat(r.output()).as("%s output", block).contains(block.expect());
  }

  private record Run(boolean ended, int exitCode, String output) {}

  private Run runOnce(Path root, Path jar, Path bin, RunnableBlocks.Block block, int attempt)
      throws Exception {
    Path dir =
        Files.createDirectories(
            tmp.resolve(
                "block-" + block.line() + "-" + block.file().replace('/', '_') + "-" + attempt));
    String grpcPort = Integer.toString(freePort());
    String metricsPort = Integer.toString(freePort());
    // Ports first, paths last: the checkout, the jar and the block's folder may themselves lie
    // under /tmp/ or hold the digits of a default port.
    String script =
        PREAMBLE
            + block
                .script()
                .replace("ops/target/cutpoint.jar", JAR_SLOT)
                .replace("/tmp/", TMP_SLOT)
                .replace("7070", grpcPort)
                .replace("9464", metricsPort)
                .replace(JAR_SLOT, jar.toString())
                .replace(TMP_SLOT, dir + "/");
    Path out = dir.resolve("output.txt");
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", script)
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().keySet().removeIf(k -> k.startsWith("CUTPOINT_"));
    // the defaults a block relies on without writing them: the server's ports, the admin commands'
    // target
    pb.environment().put("CUTPOINT_PORT", grpcPort);
    pb.environment().put("CUTPOINT_METRICS_PORT", metricsPort);
    pb.environment().put("CUTPOINT_SERVER", "localhost:" + grpcPort);
    pb.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
    Process p = pb.start();
    boolean ended = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!ended) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    return new Run(
        ended, ended ? p.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8));
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
