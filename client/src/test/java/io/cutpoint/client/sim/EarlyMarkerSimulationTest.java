package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The engine with early copies of markers ({@link MarkerLane#EARLY_COPIES}: every marker travels in
 * channel order and once more on a lane that overtakes data and lags it at random) over 10,500
 * seeded schedules, 1,500 per topology family with channels, where a copy comes with a random part
 * of the data in transit ahead of the marker, as read ahead: every snapshot completes at every
 * worker, every cut passes CutVerifier and conserves the bank's money. {@link FaultInjectionTest}
 * shows that an engine that takes the early copy for the marker itself, without its boundary, is
 * caught by both checks.
 */
class EarlyMarkerSimulationTest {

  static final int SCHEDULES_PER_KIND = 1_500;
  private static final LongAdder SCHEDULES = new LongAdder();
  private static final LongAdder OVERTAKING = new LongAdder();

  @ParameterizedTest
  @EnumSource(value = TopologyKind.class, names = "LONE_WORKER", mode = EnumSource.Mode.EXCLUDE)
  void cutsStayConsistentWhenMarkersOvertakeData(TopologyKind kind) {
    SimConfig config = SimConfig.defaults();
    List<SimResult> failures = new ArrayList<>();
    long overtaking = 0, recorded = 0, readAhead = 0;
    int snapshots = 0, complete = 0, withOvertaking = 0;
    for (int i = 0; i < SCHEDULES_PER_KIND; i++) {
      long seed = 31_000_000L + kind.ordinal() * 1_000_003L + i;
      SimResult r = EngineSimulation.run(kind, seed, config, Fault.NONE, MarkerLane.EARLY_COPIES);
      if (!r.ok()) {
        failures.add(r);
      }
      overtaking += r.stats().overtakingMarkers();
      readAhead += r.stats().readAheadMessages();
      withOvertaking += r.stats().overtakingMarkers() > 0 ? 1 : 0;
      recorded += r.stats().recordedMessages();
      snapshots += r.stats().snapshots();
      complete += r.stats().completedCuts();
      SCHEDULES.increment();
    }
    assertThat(failures)
        .withFailMessage(
            () ->
                failures.size()
                    + " of "
                    + SCHEDULES_PER_KIND
                    + " schedules failed:\n"
                    + failures.stream()
                        .limit(5)
                        .map(SimResult::describe)
                        .reduce("", String::concat))
        .isEmpty();
    assertThat(complete).isEqualTo(snapshots);
    assertThat(recorded).as("messages recorded in flight").isPositive();
    // the schedules exercise what they claim to: copies that did overtake data
    assertThat(withOvertaking)
        .as("schedules where an early copy overtook data")
        .isGreaterThan(SCHEDULES_PER_KIND / 4);
    assertThat(readAhead).as("messages handed over read ahead with early copies").isPositive();
    OVERTAKING.add(overtaking);
    System.out.println(
        kind
            + " with early markers: "
            + withOvertaking
            + " of "
            + SCHEDULES_PER_KIND
            + " schedules had copies that overtook data ("
            + overtaking
            + " copies, "
            + readAhead
            + " messages read ahead), "
            + recorded
            + " messages recorded in flight");
  }

  @ParameterizedTest
  @EnumSource(
      value = TopologyKind.class,
      names = {"RING", "FULL_MESH", "RANDOM_STRONGLY_CONNECTED"})
  void abortedSnapshotsLeaveNothingBehindWithEarlyMarkersToo(TopologyKind kind) {
    SimConfig config = SimConfig.defaults().withAbortPercent(40);
    int aborted = 0;
    for (int i = 0; i < 200; i++) {
      SimResult r =
          EngineSimulation.run(kind, 32_000_000L + i, config, Fault.NONE, MarkerLane.EARLY_COPIES);
      r.assertOk();
      aborted += r.stats().aborted();
    }
    assertThat(aborted).isPositive();
  }

  @AfterAll
  static void report() {
    System.out.println(
        "early-marker schedules: "
            + SCHEDULES.sum()
            + ", early copies that overtook data: "
            + OVERTAKING.sum());
  }
}
