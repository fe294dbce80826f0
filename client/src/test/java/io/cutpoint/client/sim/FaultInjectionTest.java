package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.sim.SimResult.ProblemKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The simulator's checks are not vacuous: each deliberately wrong engine variant is caught, by
 * CutVerifier and by the bank's conservation check, and the report names the seed to replay.
 */
class FaultInjectionTest {

  /**
   * Every seed runs twice, with the correct engine and with the wrong one. Wherever the wrong one
   * recorded different cuts than the correct one, both checks must catch it in that schedule.
   */
  @ParameterizedTest
  @EnumSource(value = Fault.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void aWrongEngineIsCaughtByTheVerifierAndByConservation(Fault fault) {
    List<SimResult> differing = new ArrayList<>();
    List<String> missed = new ArrayList<>();
    int runs = 0;
    for (TopologyKind kind :
        List.of(
            TopologyKind.RANDOM_STRONGLY_CONNECTED, TopologyKind.FULL_MESH, TopologyKind.RING)) {
      for (long seed = 0; seed < 100; seed++) {
        SimResult correct =
            EngineSimulation.run(kind, seed, SimConfig.defaults(), Fault.NONE, fault.lane());
        correct.assertOk();
        SimResult wrong = EngineSimulation.run(kind, seed, SimConfig.defaults(), fault);
        runs++;
        if (wrong.cuts().equals(correct.cuts())) {
          continue;
        }
        differing.add(wrong);
        for (ProblemKind check : List.of(ProblemKind.CUT_VIOLATION, ProblemKind.NOT_CONSERVED)) {
          if (!wrong.has(check)) {
            missed.add(check + " missed in " + wrong.describe());
          }
        }
      }
    }
    System.out.println(
        fault
            + ": cuts differ from the correct engine's in "
            + differing.size()
            + " of "
            + runs
            + " schedules; checks missed "
            + missed.size());
    assertThat(differing)
        .as("schedules where " + fault + " changed a cut")
        .hasSizeGreaterThan(runs / 10);
    assertThat(missed).as("wrong cuts that a check let through").isEmpty();
    assertThat(differing.get(0).describe())
        .contains("seed=" + differing.get(0).seed())
        .contains(
            "-Dcutpoint.sim.replay="
                + differing.get(0).scenario()
                + ":"
                + differing.get(0).seed()
                + ":"
                + fault);
  }

  @ParameterizedTest
  @EnumSource(value = Fault.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void aFailedScheduleReplaysIdentically(Fault fault) {
    for (long seed = 0; seed < 200; seed++) {
      SimResult r = EngineSimulation.run(TopologyKind.FULL_MESH, seed, SimConfig.defaults(), fault);
      if (!r.ok()) {
        SimResult again =
            EngineSimulation.run(TopologyKind.FULL_MESH, seed, SimConfig.defaults(), fault);
        assertThat(again.problems()).isEqualTo(r.problems());
        assertThat(again.stats()).isEqualTo(r.stats());
        return;
      }
    }
    throw new AssertionError(fault + " was never caught on FULL_MESH");
  }
}
