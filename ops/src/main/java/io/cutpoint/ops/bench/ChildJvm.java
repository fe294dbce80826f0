package io.cutpoint.ops.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The bench's measurements in a JVM of their own, started with the flags that worker-sdk.md
 * recommends to workers with large states, as benchmark harnesses fork theirs. A flag of the JVM
 * cannot be set from inside it, and the one that matters here, {@code
 * -XX:+UseTransparentHugePages}, made local-copy rollbacks 4 to 8 times faster (benchmarks.md,
 * section 4.22). The launching JVM only waits, and passes the child's output on.
 */
final class ChildJvm {

  /** Tells a child, and anyone who wants the launching JVM measured, not to fork. */
  static final String NO_FORK = "--no-fork";

  private static final String HUGE_PAGES = "-XX:+UseTransparentHugePages";

  /** The launching JVM's process id, as the child gets it. */
  static final String LAUNCHER = "cutpoint.bench.launcher";

  /** The child's exit code when its launcher ended first: the code of a TERM, as for a kill. */
  static final int LAUNCHER_GONE = 143;

  private ChildJvm() {}

  /**
   * The flags a child would add to this JVM's: huge pages where the kernel gives them on request
   * and this JVM did not ask; none (no fork) otherwise, and where its own arguments already chose.
   */
  static List<String> missingFlags(HugePages pages, List<String> jvmArguments) {
    boolean chosen = jvmArguments.stream().anyMatch(a -> a.contains("UseTransparentHugePages"));
    if (pages.system().equals("madvise") && !pages.jvm() && !chosen) {
      return List.of(HUGE_PAGES);
    }
    return List.of();
  }

  /**
   * Whether {@code main} is loaded from an entry of {@code classPath}, so that a child started with
   * that class path finds it (not so under a launcher with class loaders of its own, such as {@code
   * mvn exec:java}).
   */
  static boolean onClassPath(Class<?> main, String classPath) {
    try {
      Path own = Path.of(main.getProtectionDomain().getCodeSource().getLocation().toURI());
      for (String entry : classPath.split(File.pathSeparator)) {
        if (!entry.isEmpty() && samePath(Path.of(entry), own)) {
          return true;
        }
      }
    } catch (URISyntaxException | RuntimeException e) {
      // no code source, or not a file: not found
    }
    return false;
  }

  private static boolean samePath(Path a, Path b) {
    return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
  }

  /**
   * The child's command line: {@code java}, this JVM's arguments but its agents and flight
   * recordings (the child would open the same ports and files), the added {@code flags}, the
   * launcher's process id ({@link #LAUNCHER}), this class path and main class, then the command's
   * own {@code args} and {@link #NO_FORK}.
   */
  static List<String> command(
      String java,
      List<String> jvmArguments,
      List<String> flags,
      String classPath,
      String mainClass,
      List<String> args,
      long launcherPid) {
    List<String> command = new ArrayList<>();
    command.add(java);
    for (String a : jvmArguments) {
      if (!a.startsWith("-agentlib")
          && !a.startsWith("-agentpath")
          && !a.startsWith("-javaagent")
          && !a.startsWith("-XX:StartFlightRecording")
          && !a.startsWith("-XX:FlightRecorderOptions")) {
        command.add(a);
      }
    }
    command.addAll(flags);
    command.add("-D" + LAUNCHER + "=" + launcherPid);
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass);
    command.addAll(args);
    command.add(NO_FORK);
    return command;
  }

  /**
   * Runs {@code command}, copies its output and errors line by line to {@code out} and {@code err},
   * and returns its exit code. The child is destroyed if this JVM ends or this thread is
   * interrupted first.
   */
  static int run(List<String> command, PrintWriter out, PrintWriter err) {
    Process child;
    try {
      child = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT).start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command.get(0), e);
    }
    Thread reaper = new Thread(child::destroyForcibly, "cutpoint-bench-child-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    Thread outCopy = copy(child.getInputStream(), out, "cutpoint-bench-child-out");
    Thread errCopy = copy(child.getErrorStream(), err, "cutpoint-bench-child-err");
    try {
      int code = child.waitFor();
      outCopy.join();
      errCopy.join();
      return code;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      child.destroyForcibly();
      return 130;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(reaper);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs, or has run: the child is gone either way
      }
    }
  }

  /**
   * In a child: ends this JVM with {@link #LAUNCHER_GONE} once the launching JVM named by {@link
   * #LAUNCHER} has ended, also when it was killed without running its shutdown hook (which destroys
   * the child otherwise). Nothing where the property is not set.
   */
  static void endWithLauncher() {
    Long pid = Long.getLong(LAUNCHER);
    if (pid == null) {
      return;
    }
    ProcessHandle.of(pid)
        .ifPresentOrElse(
            launcher -> launcher.onExit().thenRun(() -> System.exit(LAUNCHER_GONE)),
            () -> System.exit(LAUNCHER_GONE));
  }

  private static Thread copy(InputStream from, PrintWriter to, String name) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(from, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  synchronized (to) {
                    to.println(line);
                    to.flush();
                  }
                }
              } catch (IOException e) {
                // the child ended while its pipe was read: what it wrote is passed on
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
