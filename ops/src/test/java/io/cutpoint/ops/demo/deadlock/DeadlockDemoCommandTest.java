package io.cutpoint.ops.demo.deadlock;

import static io.cutpoint.ops.demo.deadlock.DeadlockServiceTest.cutpoint;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.ops.demo.deadlock.DeadlockServiceTest.Run;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code cutpoint demo --scenario deadlock}, run in-process through the command line. */
class DeadlockDemoCommandTest {

  @Test
  void theFatalOrderDeadlocksAndTheDemoNamesTheCycle() {
    Run r =
        cutpoint(
            "demo",
            "--scenario",
            "deadlock",
            "--philosophers",
            "4",
            "--fatal-chance",
            "1",
            "--interval",
            "200ms",
            "--duration",
            "60s",
            "--seed",
            "1",
            "--json");
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    List<String> lines = Arrays.asList(r.out().split("\n"));
    assertThat(lines.get(0)).startsWith("{\"event\":\"started\"").contains("\"philosophers\":4");
    assertThat(lines)
        .filteredOn(l -> l.startsWith("{\"event\":\"deadlock\""))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains("\"cycle\":[\"p0\",\"p1\",\"p2\",\"p3\"]")
                    .contains("\"resources\":[\"fork-1\",\"fork-2\",\"fork-3\",\"fork-0\"]")
                    .contains("\"confirmed\":true"));
    assertThat(lines.get(lines.size() - 1))
        .startsWith("{\"event\":\"summary\",\"ok\":true,\"outcome\":\"deadlock in snapshot");
  }

  @Test
  void theSafeOrderFinishesItsMealsAndIsReportedTerminatedWithoutADeadlock() {
    Run r =
        cutpoint(
            "demo",
            "--scenario",
            "deadlock",
            "--fatal-chance",
            "0",
            "--meals",
            "5",
            "--interval",
            "200ms",
            "--duration",
            "60s");
    assertThat(r.code()).as(r.out() + r.err()).isZero();
    assertThat(r.out())
        .startsWith("5 philosophers, fatal order chance 0.0 per meal, 5 meals each, seed 1")
        .containsPattern(
            "terminated in snapshot \\d+: every philosopher is done and no fork or request is in transit")
        .contains("OK: terminated in snapshot")
        .doesNotContain("deadlock in snapshot")
        .doesNotContain("PROBLEM");
  }

  @Test
  void flagsOfTheOtherScenarioAreRefused() {
    Run bankFlag = cutpoint("demo", "--scenario", "deadlock", "--workers", "3");
    assertThat(bankFlag.code()).isEqualTo(2);
    assertThat(bankFlag.err()).contains("--workers does not apply to --scenario deadlock");
    Run deadlockFlag = cutpoint("demo", "--philosophers", "3");
    assertThat(deadlockFlag.code()).isEqualTo(2);
    assertThat(deadlockFlag.err()).contains("--philosophers does not apply to --scenario bank");
    Run chance = cutpoint("demo", "--scenario", "deadlock", "--fatal-chance", "1.5");
    assertThat(chance.code()).isEqualTo(2);
    assertThat(chance.err()).contains("--fatal-chance must be between 0 and 1, got 1.5");
    Run few = cutpoint("demo", "--scenario", "deadlock", "--philosophers", "1");
    assertThat(few.code()).isEqualTo(2);
    assertThat(few.err()).contains("--philosophers must be at least 2");
    Run unknown = cutpoint("demo", "--scenario", "chess");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("--scenario");
  }
}
