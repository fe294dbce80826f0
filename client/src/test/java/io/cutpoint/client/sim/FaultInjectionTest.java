package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.sim.SimResult.ProblemKind;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The simulator's checks are not vacuous: each deliberately wrong engine variant is caught, by
 * CutVerifier and by the bank's conservation check, and the report names the seed to replay.
 */
class FaultInjectionTest {

  @ParameterizedTest
  @EnumSource(value = Fault.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void aWrongEngineIsCaughtByTheVerifierAndByConservation(Fault fault) {
    List<SimResult> caught = new ArrayList<>();
    Set<ProblemKind> kinds = EnumSet.noneOf(ProblemKind.class);
    int runs = 0;
    for (TopologyKind kind : List.of(TopologyKind.RANDOM_STRONGLY_CONNECTED, TopologyKind.FULL_MESH,
        TopologyKind.RING)) {
      for (long seed = 0; seed < 100; seed++) {
        SimResult r = Simulation.run(kind, seed, SimConfig.defaults(), fault);
        runs++;
        if (!r.ok()) {
          caught.add(r);
          r.problems().forEach(p -> kinds.add(p.kind()));
        }
      }
    }
    System.out.println(fault + ": caught in " + caught.size() + " of " + runs + " schedules; "
        + kinds);
    assertThat(caught).as("schedules where " + fault + " was caught").isNotEmpty();
    assertThat(kinds).contains(ProblemKind.CUT_VIOLATION, ProblemKind.NOT_CONSERVED);
    assertThat(caught.get(0).describe())
        .contains("seed=" + caught.get(0).seed())
        .contains("-Dcutpoint.sim.replay=" + caught.get(0).scenario() + ":" + caught.get(0).seed()
            + ":" + fault);
  }

  @ParameterizedTest
  @EnumSource(value = Fault.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void aFailedScheduleReplaysIdentically(Fault fault) {
    for (long seed = 0; seed < 200; seed++) {
      SimResult r = Simulation.run(TopologyKind.FULL_MESH, seed, SimConfig.defaults(), fault);
      if (!r.ok()) {
        SimResult again = Simulation.run(TopologyKind.FULL_MESH, seed, SimConfig.defaults(), fault);
        assertThat(again.problems()).isEqualTo(r.problems());
        assertThat(again.stats()).isEqualTo(r.stats());
        return;
      }
    }
    throw new AssertionError(fault + " was never caught on FULL_MESH");
  }
}
