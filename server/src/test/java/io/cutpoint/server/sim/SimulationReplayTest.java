package io.cutpoint.server.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.sim.SimFaults;
import io.cutpoint.client.sim.SimResult;
import io.cutpoint.client.sim.TopologyKind;
import org.junit.jupiter.api.Test;

/**
 * Replays one schedule with its event trace: {@code -Dcutpoint.sim.replay=KIND:SEED[:VARIANT]}, the
 * line a failing schedule prints ({@link Simulation}, as {@link SimulationPropertyTest} runs it;
 * engine-level schedules replay in the client module). Without the property it replays a fixed
 * schedule twice and checks the two runs are identical event by event.
 */
class SimulationReplayTest {

  @Test
  void aScheduleIsAPureFunctionOfItsSeed() {
    try (QuietLogs quiet = new QuietLogs()) {
      replayOrCompare();
    }
  }

  private static void replayOrCompare() {
    String spec = System.getProperty("cutpoint.sim.replay");
    if (spec != null && !spec.isBlank()) {
      SimResult r = replay(spec);
      r.trace().forEach(System.out::println);
      System.out.println(r.describe());
      r.assertOk();
      return;
    }
    String s = "RANDOM_STRONGLY_CONNECTED:7";
    SimResult first = replay(s);
    SimResult second = replay(s);
    first.assertOk();
    assertThat(first.trace()).isNotEmpty().isEqualTo(second.trace());
    assertThat(first.cuts()).isNotEmpty().isEqualTo(second.cuts());
    assertThat(replay("RANDOM_STRONGLY_CONNECTED:8").trace()).isNotEqualTo(first.trace());
  }

  static SimResult replay(String spec) {
    String[] parts = spec.split(":");
    return Simulation.forKind(
            TopologyKind.valueOf(parts[0]),
            Long.parseLong(parts[1]),
            SimulationPropertyTest.CONFIG,
            SimFaults.defaults(),
            Variant.valueOf(parts.length > 2 ? parts[2] : "NONE"),
            true)
        .run();
  }
}
