package io.cutpoint.ops.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A command-line tool of the machine (promtool, systemd-analyze) run on the repository's files.
 * Where the tool is missing, a test that needs it is skipped and says why, unless {@code
 * -Dcutpoint.require.tools=true} or the environment has {@code CUTPOINT_REQUIRE_TOOLS=true} (as
 * {@code .ci/run} sets it): then it fails.
 */
public final class ExternalTool {

  private final String name;

  private ExternalTool(String name) {
    this.name = name;
  }

  /**
   * The tool on the PATH; skips (or, when tools are required, fails) the test if it is not there.
   */
  public static ExternalTool require(String name, String installHint) {
    boolean found = onPath(name);
    boolean required =
        Boolean.getBoolean("cutpoint.require.tools")
            || "true".equals(System.getenv("CUTPOINT_REQUIRE_TOOLS"));
    if (!found && required) {
      throw new AssertionError(name + " is not on the PATH (" + installHint + ")");
    }
    Assumptions.assumeTrue(
        found, () -> name + " is not on the PATH (" + installHint + "); skipped");
    return new ExternalTool(name);
  }

  private static boolean onPath(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(java.util.regex.Pattern.quote(java.io.File.pathSeparator), -1)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
        return true;
      }
    }
    return false;
  }

  /** The repository's root folder (the parent of the ops module). */
  static Path repositoryRoot() {
    return Path.of(System.getProperty("cutpoint.ops.dir", "."))
        .toAbsolutePath()
        .normalize()
        .getParent();
  }

  /** Runs the tool with {@code args} in {@code dir}; returns its exit code and its output. */
  Result run(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>();
    command.add(name);
    command.addAll(List.of(args));
    Path output = Files.createTempFile("cutpoint-tool", ".txt");
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError(String.join(" ", command) + " did not end within 60 s");
      }
      return new Result(
          String.join(" ", command),
          p.exitValue(),
          Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** What one run of the tool returned and printed (stdout and stderr together). */
  record Result(String command, int code, String output) {

    /** Asserts exit code 0, showing the output otherwise. */
    Result succeeded() {
      assertThat(code).as("%s exited with %d:%n%s", command, code, output).isZero();
      return this;
    }
  }
}
