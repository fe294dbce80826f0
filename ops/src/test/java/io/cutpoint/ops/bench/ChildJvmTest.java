package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

  @Test
  void aChildAsksForHugePagesOnlyWhereTheKernelGivesThemOnRequestAndNobodyChose() {
    assertThat(ChildJvm.missingFlags(new HugePages("madvise", false), List.of("-Xmx2g")))
        .containsExactly("-XX:+UseTransparentHugePages");
    assertThat(ChildJvm.missingFlags(new HugePages("madvise", true), List.of())).isEmpty();
    assertThat(ChildJvm.missingFlags(new HugePages("always", false), List.of())).isEmpty();
    assertThat(ChildJvm.missingFlags(new HugePages("never", false), List.of())).isEmpty();
    assertThat(ChildJvm.missingFlags(new HugePages("unknown", false), List.of())).isEmpty();
    assertThat(
            ChildJvm.missingFlags(
                new HugePages("madvise", false), List.of("-XX:-UseTransparentHugePages")))
        .as("a JVM started without them on purpose")
        .isEmpty();
  }

  @Test
  void theChildKeepsThisJvmsSettingsButItsAgentsAndRecordingsAndIsToldNotToForkAgain() {
    List<String> command =
        ChildJvm.command(
            "/jdk/bin/java",
            List.of(
                "-Xmx2g",
                "-agentlib:jdwp=transport=dt_socket,server=y,address=5005",
                "-javaagent:/x/agent.jar",
                "-agentpath:/x/libasyncProfiler.so",
                "-XX:StartFlightRecording=filename=b.jfr",
                "-XX:FlightRecorderOptions=stackdepth=128",
                "-Dcutpoint.x=1"),
            List.of("-XX:+UseTransparentHugePages"),
            "cutpoint.jar",
            "io.cutpoint.ops.CutpointCommand",
            List.of("bench", "--quick", "--json"),
            4242);
    assertThat(command)
        .containsExactly(
            "/jdk/bin/java",
            "-Xmx2g",
            "-Dcutpoint.x=1",
            "-XX:+UseTransparentHugePages",
            "-Dcutpoint.bench.launcher=4242",
            "-cp",
            "cutpoint.jar",
            "io.cutpoint.ops.CutpointCommand",
            "bench",
            "--quick",
            "--json",
            "--no-fork");
  }

  @Test
  void aChildIsStartedOnlyWithAClassPathThatHoldsTheCommand() {
    String classPath = System.getProperty("java.class.path");
    assertThat(ChildJvm.onClassPath(ChildJvm.class, classPath)).isTrue();
    assertThat(ChildJvm.onClassPath(ChildJvm.class, "/nowhere/cutpoint.jar")).isFalse();
    assertThat(ChildJvm.onClassPath(String.class, classPath)).as("a class of the JDK").isFalse();
  }

  @Test
  void theChildsOutputAndExitCodeAreItsLaunchers() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String java = ProcessHandle.current().info().command().orElseThrow();
    int code =
        ChildJvm.run(
            List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                Echo.class.getName(),
                "line one",
                "line two"),
            new PrintWriter(out),
            new PrintWriter(err));
    assertThat(code).isEqualTo(3);
    assertThat(out.toString().lines()).containsExactly("line one", "line two");
    assertThat(err.toString().lines()).containsExactly("to stderr");
  }

  @Test
  void aChildEndsWhenItsLauncherIsKilledWithoutItsHooks() throws Exception {
    String java = ProcessHandle.current().info().command().orElseThrow();
    String classPath = System.getProperty("java.class.path");
    Process launcher =
        new ProcessBuilder(java, "-cp", classPath, IdleLauncher.class.getName()).start();
    Process child = null;
    try {
      child =
          new ProcessBuilder(
                  java,
                  "-D" + ChildJvm.LAUNCHER + "=" + launcher.pid(),
                  "-cp",
                  classPath,
                  WatchingChild.class.getName())
              .redirectErrorStream(true)
              .start();
      Process watching = child;
      // the child says when it watches; until the launcher ends, it does not end
      try (var out =
          new java.io.BufferedReader(new java.io.InputStreamReader(child.getInputStream()))) {
        assertThat(out.readLine()).isEqualTo("watching");
        assertThat(watching.isAlive()).isTrue();
        launcher.destroyForcibly(); // SIGKILL: no shutdown hook of the launcher runs
        await().atMost(Duration.ofSeconds(20)).until(() -> !watching.isAlive());
      }
      assertThat(child.exitValue()).isEqualTo(ChildJvm.LAUNCHER_GONE);
    } finally {
      launcher.destroyForcibly().waitFor();
      if (child != null) {
        child.destroyForcibly().waitFor();
      }
    }
  }

  /** A launcher that only waits, until it is killed. */
  public static final class IdleLauncher {
    public static void main(String[] args) throws InterruptedException {
      new CountDownLatch(1).await();
    }
  }

  /** A child that watches its launcher, says so, then waits for it to end. */
  public static final class WatchingChild {
    public static void main(String[] args) throws InterruptedException {
      ChildJvm.endWithLauncher();
      System.out.println("watching");
      System.out.flush();
      new CountDownLatch(1).await(); // until the watch ends this JVM, or the test kills it
    }
  }

  /** A child that prints its arguments, one line each, and ends with exit code 3. */
  public static final class Echo {
    public static void main(String[] args) {
      for (String a : args) {
        System.out.println(a);
      }
      System.err.println("to stderr");
      System.exit(3);
    }
  }
}
