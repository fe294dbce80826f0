package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Replays one engine-level schedule ({@link EngineSimulation}) with its event trace: {@code
 * -Dcutpoint.sim.replay=KIND:SEED:ENGINE}, {@code KIND:SEED:EARLY} (the correct engine with early
 * copies of markers) or {@code KIND:SEED:FAULT} (a {@link Fault}), the line a failing schedule
 * prints. Worker-level schedules replay in the server module (its {@code
 * io.cutpoint.server.sim.SimulationReplayTest}), where the coordinator core runs. Without the
 * property it replays a fixed schedule twice and checks the two runs are identical event by event.
 */
class SimulationReplayTest {

  @Test
  void anEngineScheduleIsAPureFunctionOfItsSeed() {
    String spec = System.getProperty("cutpoint.sim.replay");
    if (spec != null && !spec.isBlank() && isEngineLevel(spec)) {
      SimResult r = replay(spec);
      r.trace().forEach(System.out::println);
      System.out.println(r.describe());
      r.assertOk();
      return;
    }
    String s = "RANDOM_STRONGLY_CONNECTED:42:ENGINE";
    SimResult first = replay(s);
    SimResult second = replay(s);
    first.assertOk();
    assertThat(first.trace()).isNotEmpty().isEqualTo(second.trace());
    assertThat(replay(s.replace(":42", ":43")).trace()).isNotEqualTo(first.trace());
  }

  private static boolean isEngineLevel(String spec) {
    String[] parts = spec.split(":");
    return parts.length > 2
        && (parts[2].equals("ENGINE") || parts[2].equals("EARLY") || fault(parts[2]) != null);
  }

  private static Fault fault(String name) {
    for (Fault f : Fault.values()) {
      if (f != Fault.NONE && f.name().equals(name)) {
        return f;
      }
    }
    return null;
  }

  static SimResult replay(String spec) {
    String[] parts = spec.split(":");
    TopologyKind kind = TopologyKind.valueOf(parts[0]);
    long seed = Long.parseLong(parts[1]);
    Fault f = parts[2].equals("ENGINE") || parts[2].equals("EARLY") ? Fault.NONE : fault(parts[2]);
    MarkerLane lane = parts[2].equals("EARLY") ? MarkerLane.EARLY_COPIES : f.lane();
    return EngineSimulation.forKind(kind, seed, SimConfig.defaults(), f, lane, true).run();
  }
}
