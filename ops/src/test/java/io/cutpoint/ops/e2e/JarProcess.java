package io.cutpoint.ops.e2e;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code java -jar cutpoint.jar ...} as a child process, its output collected line by line. */
final class JarProcess implements AutoCloseable {

  private final Process process;
  private final List<String> out = new CopyOnWriteArrayList<>();
  private final List<String> err = new CopyOnWriteArrayList<>();
  private final Thread outReader;
  private final Thread errReader;

  private JarProcess(Process process) {
    this.process = process;
    this.outReader = pump(process.getInputStream(), out);
    this.errReader = pump(process.getErrorStream(), err);
  }

  static Path jar() {
    String path = System.getProperty("cutpoint.jar");
    if (path == null) {
      throw new IllegalStateException(
          "system property cutpoint.jar is not set (run with failsafe)");
    }
    Path jar = Path.of(path);
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no jar at " + jar + " (run after `package`)");
    }
    return jar;
  }

  static JarProcess start(String... args) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-jar",
                jar().toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().keySet().removeIf(k -> k.startsWith("CUTPOINT_"));
    pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    return new JarProcess(pb.start());
  }

  /** Runs to the end (at most {@code timeout}); the result holds the exit code and the output. */
  static Result run(Duration timeout, String... args) throws Exception {
    try (JarProcess p = start(args)) {
      return p.waitForExit(timeout);
    }
  }

  /** Waits for the process to exit. */
  Result waitForExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError(
          "cutpoint did not exit within " + timeout + "; stdout: " + out + " stderr: " + err);
    }
    outReader.join(5_000);
    errReader.join(5_000);
    return new Result(
        process.exitValue(), String.join("\n", out), String.join("\n", err), List.copyOf(out));
  }

  /** Waits for a stdout line matching {@code pattern} and returns the match. */
  Matcher awaitOut(Pattern pattern, Duration timeout) {
    Matcher[] found = new Matcher[1];
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!process.isAlive() && find(pattern).isEmpty()) {
                throw new AssertionError(
                    "cutpoint exited with "
                        + process.exitValue()
                        + "; stdout: "
                        + out
                        + " stderr: "
                        + err);
              }
              Optional<Matcher> m = find(pattern);
              m.ifPresent(x -> found[0] = x);
              return m.isPresent();
            });
    return found[0];
  }

  private Optional<Matcher> find(Pattern pattern) {
    for (String line : out) {
      Matcher m = pattern.matcher(line);
      if (m.find()) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  List<String> err() {
    return err;
  }

  /** Asks the process to stop (SIGTERM, as Ctrl-C or a service manager would) and waits. */
  int terminate(Duration timeout) throws InterruptedException {
    // Through the handle: Process.destroy() would also close our end of the pipes and lose the
    // last lines the process prints while it shuts down.
    process.toHandle().destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("cutpoint did not stop within " + timeout + " after SIGTERM");
    }
    outReader.join(5_000);
    errReader.join(5_000);
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    outReader.join(5_000);
    errReader.join(5_000);
  }

  private static Thread pump(InputStream in, List<String> into) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  into.add(line);
                }
              } catch (IOException e) {
                // The process ended.
              }
            },
            "cutpoint-it-pump");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** What a finished run printed and returned. */
  record Result(int code, String out, String err, List<String> outLines) {}
}
