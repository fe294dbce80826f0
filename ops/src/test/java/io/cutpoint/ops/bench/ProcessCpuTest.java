package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The JIT's share of the process CPU: which threads count, and which fields are their times. */
class ProcessCpuTest {

  @Test
  void aCompilerThreadsStatLineGivesItsUserAndSystemTicks() {
    String c2 =
        "4242 (C2 CompilerThre) S 1 1 1 0 -1 1077936192 3 0 0 0 725 38 0 0 20 0 1 0 150 0 0";
    assertThat(ProcessCpu.ticksIfCompiler(c2)).isEqualTo(725 + 38);
    String c1 = "4243 (C1 CompilerThre) R 1 1 1 0 -1 1077936192 3 0 0 0 12 3 0 0 20 0 1 0 150";
    assertThat(ProcessCpu.ticksIfCompiler(c1)).isEqualTo(15);
  }

  @Test
  void otherThreadsCountForNothingEvenWithParenthesesOrSpacesInTheirNames() {
    assertThat(
            ProcessCpu.ticksIfCompiler(
                "77 (cutpoint-store) S 1 1 1 0 -1 1077936192 3 0 0 0 900 100 0 0 20 0 1 0 150"))
        .isZero();
    assertThat(
            ProcessCpu.ticksIfCompiler(
                "78 (x) (C2 CompilerThre) S 1 1 1 0 -1 1077936192 3 0 0 0 9 1 0 0 20 0 1 0 150"))
        .as("the name runs to the last parenthesis")
        .isZero();
    assertThat(ProcessCpu.ticksIfCompiler("garbage")).isZero();
  }

  @Test
  void onLinuxTheCompilerThreadsAreFoundAndTellPartOfTheProcesssTime() {
    if (!Files.isDirectory(Path.of("/proc/self/task"))) {
      assertThat(ProcessCpu.jitNanos()).isEqualTo(-1);
      return;
    }
    // Starting the test framework compiled thousands of methods: well over one 10 ms tick.
    long jit = ProcessCpu.jitNanos();
    assertThat(jit).isPositive().isLessThanOrEqualTo(ProcessCpu.nanos());
  }
}
