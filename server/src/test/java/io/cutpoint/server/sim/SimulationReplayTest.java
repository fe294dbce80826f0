package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Replays one schedule with its event trace: {@code -Dcutpoint.sim.replay=KIND:SEED[:VARIANT]}, the
 * line a failing schedule prints. Without a variant, or with a {@link Variant}, it is a
 * worker-level schedule ({@link Simulation}, as {@link SimulationPropertyTest} runs it); with
 * {@code ENGINE} or a {@link Fault}, an engine-level one ({@link EngineSimulation}). Without the
 * property it replays a fixed schedule of each twice and checks the two runs are identical event by
 * event.
 */
class SimulationReplayTest {

  @Test
  void aScheduleIsAPureFunctionOfItsSeed() {
    String spec = System.getProperty("cutpoint.sim.replay");
    if (spec != null && !spec.isBlank()) {
      SimResult r = replay(spec);
      r.trace().forEach(System.out::println);
      System.out.println(r.describe());
      r.assertOk();
      return;
    }
    for (String s :
        new String[] {"RANDOM_STRONGLY_CONNECTED:42", "RANDOM_STRONGLY_CONNECTED:42:ENGINE"}) {
      SimResult first = replay(s);
      SimResult second = replay(s);
      first.assertOk();
      assertThat(first.trace()).isNotEmpty().isEqualTo(second.trace());
      assertThat(replay(s.replace(":42", ":43")).trace()).isNotEqualTo(first.trace());
    }
  }

  static SimResult replay(String spec) {
    String[] parts = spec.split(":");
    TopologyKind kind = TopologyKind.valueOf(parts[0]);
    long seed = Long.parseLong(parts[1]);
    String variant = parts.length > 2 ? parts[2] : "NONE";
    if (variant.equals("ENGINE")) {
      return EngineSimulation.forKind(kind, seed, SimConfig.defaults(), Fault.NONE, true).run();
    }
    for (Fault f : Fault.values()) {
      if (f != Fault.NONE && f.name().equals(variant)) {
        return EngineSimulation.forKind(kind, seed, SimConfig.defaults(), f, true).run();
      }
    }
    return Simulation.forKind(
            kind,
            seed,
            SimulationPropertyTest.CONFIG,
            SimFaults.defaults(),
            Variant.valueOf(variant),
            true)
        .run();
  }
}
