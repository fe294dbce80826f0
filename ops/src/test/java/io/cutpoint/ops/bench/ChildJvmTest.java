package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
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
            List.of("bench", "--quick", "--json"));
    assertThat(command)
        .containsExactly(
            "/jdk/bin/java",
            "-Xmx2g",
            "-Dcutpoint.x=1",
            "-XX:+UseTransparentHugePages",
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
