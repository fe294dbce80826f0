package io.cutpoint.storage;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A main class of the test sources run in its own JVM with the test class path; its stdout lines
 * are queued so that a test can wait for a line instead of sleeping. Stderr goes to a file.
 *
 * <p>The child's {@code java.io.tmpdir} is a {@code tmp} directory next to that file, in the test's
 * own temporary directory: a child killed with -9 runs no exit hook, so what it extracted there
 * (RocksDB's native library, 17 MB a start) would otherwise stay in the machine's /tmp.
 */
final class ChildJvm implements AutoCloseable {
  private static final String END = "\u0000end";

  /**
   * How long a killed child may take to be gone (the kernel reaps it at once; a loaded machine is
   * slow).
   */
  private static final Duration KILLED = Duration.ofSeconds(30);

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Thread pump;

  ChildJvm(Class<?> main, List<String> jvmArgs, Path stderr, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Djava.io.tmpdir=" + Files.createDirectories(stderr.resolveSibling("tmp")));
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    pump = new Thread(this::pump, "child-stdout-" + main.getSimpleName());
    pump.setDaemon(true);
    pump.start();
  }

  private void pump() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        lines.add(line);
      }
    } catch (IOException e) {
      // The child was killed: its stream ends.
    } finally {
      lines.add(END);
    }
  }

  /** The next stdout line, or null if the child's output ended or nothing came in time. */
  String nextLine(Duration timeout) throws InterruptedException {
    String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (line == END) {
      lines.add(END);
      return null;
    }
    return line;
  }

  /** Kills the child like kill -9 and waits until it is gone. */
  int kill() throws InterruptedException {
    process.destroyForcibly();
    return waitFor(KILLED);
  }

  /**
   * Waits for the child to exit on its own; one that is still running after {@code timeout} is
   * killed and fails the test.
   */
  int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(KILLED.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError(
          "child JVM " + process.pid() + " still running after " + timeout + "; killed it");
    }
    int code = process.exitValue();
    pump.join(KILLED.toMillis());
    return code;
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
