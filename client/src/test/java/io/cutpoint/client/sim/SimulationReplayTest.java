package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Replays one schedule with its event trace: {@code -Dcutpoint.sim.replay=KIND:SEED[:FAULT]}, the
 * line a failing schedule prints. Without the property it replays a fixed schedule twice and
 * checks the two runs are identical event by event.
 */
class SimulationReplayTest {

  @Test
  void aScheduleIsAPureFunctionOfItsSeed() {
    String spec = System.getProperty("cutpoint.sim.replay");
    if (spec != null && !spec.isBlank()) {
      String[] parts = spec.split(":");
      TopologyKind kind = TopologyKind.valueOf(parts[0]);
      long seed = Long.parseLong(parts[1]);
      Fault fault = parts.length > 2 ? Fault.valueOf(parts[2]) : Fault.NONE;
      SimResult r = Simulation.forKind(kind, seed, SimConfig.defaults(), fault, true).run();
      r.trace().forEach(System.out::println);
      System.out.println(r.describe());
      r.assertOk();
      return;
    }
    SimResult first = Simulation.forKind(TopologyKind.RANDOM_STRONGLY_CONNECTED, 42,
        SimConfig.defaults(), Fault.NONE, true).run();
    SimResult second = Simulation.forKind(TopologyKind.RANDOM_STRONGLY_CONNECTED, 42,
        SimConfig.defaults(), Fault.NONE, true).run();
    first.assertOk();
    assertThat(first.trace()).isNotEmpty().isEqualTo(second.trace());
    SimResult other = Simulation.forKind(TopologyKind.RANDOM_STRONGLY_CONNECTED, 43,
        SimConfig.defaults(), Fault.NONE, true).run();
    assertThat(other.trace()).isNotEqualTo(first.trace());
  }
}
