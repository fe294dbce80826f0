package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The snapshot engine alone over many seeded schedules per topology family ({@link
 * EngineSimulation}: no transport, epochs or rollbacks, which {@code
 * io.cutpoint.server.sim.SimulationPropertyTest} runs over the real worker cores): every snapshot
 * completes at every worker, every cut passes CutVerifier, and every cut conserves the bank's
 * money. 4,000 schedules, a few seconds of CPU. A failure prints each failing seed with the line
 * that replays it.
 */
class EngineSimulationPropertyTest {

  static final int SCHEDULES_PER_KIND = 500;
  private static final Map<TopologyKind, SimResult.Stats> TOTALS =
      new EnumMap<>(TopologyKind.class);
  private static final LongAdder SCHEDULES = new LongAdder();
  private static final LongAdder CPU_NANOS = new LongAdder();

  private static long cpuNanos() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  @ParameterizedTest
  @EnumSource(TopologyKind.class)
  void everySnapshotCompletesIsConsistentAndConservesMoney(TopologyKind kind) {
    SimConfig config = SimConfig.defaults();
    List<SimResult> failures = new ArrayList<>();
    long events = 0, items = 0, recorded = 0, redundant = 0;
    int snapshots = 0, complete = 0, maxConcurrent = 0;
    long cpuStart = cpuNanos();
    for (int i = 0; i < SCHEDULES_PER_KIND; i++) {
      long seed = kind.ordinal() * 1_000_003L + i;
      SimResult r = EngineSimulation.run(kind, seed, config, Fault.NONE);
      if (!r.ok()) {
        failures.add(r);
      }
      SimResult.Stats s = r.stats();
      events += s.events();
      items += s.items();
      recorded += s.recordedMessages();
      redundant += s.redundantStarts();
      snapshots += s.snapshots();
      complete += s.completedCuts();
      maxConcurrent = Math.max(maxConcurrent, s.maxConcurrent());
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
    CPU_NANOS.add(cpuNanos() - cpuStart);
    TOTALS.put(
        kind,
        new SimResult.Stats(
            events, items, snapshots, complete, 0, 0, 0, recorded, redundant, maxConcurrent, 0, 0));
    // the schedules exercise what they claim to: overlap, several initiators, channel state
    if (kind != TopologyKind.LONE_WORKER) {
      assertThat(maxConcurrent).as("snapshots in flight at once").isGreaterThanOrEqualTo(2);
      assertThat(redundant)
          .as("initiators reached by another initiator's marker first")
          .isPositive();
    }
    if (kind != TopologyKind.LONE_WORKER && kind != TopologyKind.DAG) {
      assertThat(recorded).as("messages recorded in flight").isPositive();
    }
  }

  @Test
  void aDagMakesEverySourceAnInitiatorAndStillRecordsChannelState() {
    long recorded = 0;
    for (int i = 0; i < 200; i++) {
      SimResult r =
          EngineSimulation.run(TopologyKind.DAG, 77_000 + i, SimConfig.defaults(), Fault.NONE);
      r.assertOk();
      recorded += r.stats().recordedMessages();
    }
    assertThat(recorded).isPositive();
  }

  @ParameterizedTest
  @EnumSource(
      value = TopologyKind.class,
      names = {"RING", "FULL_MESH", "DAG", "RANDOM_STRONGLY_CONNECTED"})
  void abortedSnapshotsLeaveNothingBehindAndTheOthersStillComplete(TopologyKind kind) {
    SimConfig config = SimConfig.defaults().withAbortPercent(40);
    int aborted = 0, complete = 0, snapshots = 0;
    for (int i = 0; i < 300; i++) {
      SimResult r = EngineSimulation.run(kind, 5_000_000L + i, config, Fault.NONE);
      r.assertOk(); // non-aborted snapshots complete and verify; no engine records anything at
      // the end
      aborted += r.stats().aborted();
      complete += r.stats().completedCuts();
      snapshots += r.stats().snapshots();
    }
    int completedDespiteAbort = complete - (snapshots - aborted);
    assertThat(aborted).isPositive();
    assertThat(complete).as("some aborted snapshots were cut short").isLessThan(snapshots);
    System.out.println(
        kind
            + " with aborts: "
            + aborted
            + " of "
            + snapshots
            + " aborted, "
            + completedDespiteAbort
            + " of them had completed everywhere first");
  }

  @AfterAll
  static void report() {
    System.out.printf(
        "engine-level schedules: %d in %.1f s of CPU time%n",
        SCHEDULES.sum(), CPU_NANOS.sum() / 1e9);
    TOTALS.forEach((k, s) -> System.out.println("  " + k + ": " + s));
  }
}
