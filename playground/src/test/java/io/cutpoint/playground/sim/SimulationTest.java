package io.cutpoint.playground.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulationTest {

  @Test
  void twoHundredOverlappingSnapshotsOfAFifoRingAreAllConsistent() {
    Simulation sim = new Simulation(ProcessGraph.named("ring", 5, 1), 1, 400);

    assertThat(sim.batch(200, 150)).isEqualTo(200);

    assertThat(sim.consistentCount()).isEqualTo(200);
    assertThat(sim.inconsistentCount()).isZero();
    assertThat(sim.lastError()).isEmpty();
    assertThat(sim.moneyNow()).isEqualTo(sim.money());
  }

  @Test
  void everyNamedTopologyIsConsistentUnderFifo() {
    for (String kind : List.of("ring", "mesh", "line", "random")) {
      Simulation sim = new Simulation(ProcessGraph.named(kind, 12, 7), 7, 200);
      sim.setRate(10);
      assertThat(sim.batch(20, 50)).as(kind).isEqualTo(20);
    }
  }

  @Test
  void withoutFifoTheVerifierFlagsACutWithinThreeSeeds() {
    List<String> found = new ArrayList<>();
    for (long seed = 1; seed <= 3 && found.isEmpty(); seed++) {
      Simulation sim = new Simulation(ProcessGraph.named("ring", 5, seed), seed, 400);
      sim.setFifo(false);
      sim.batch(20, 150);
      for (SnapshotRun r : sim.runs()) {
        found.addAll(r.violations());
      }
    }
    assertThat(found).isNotEmpty();
    assertThat(found).anyMatch(v -> v.contains("->"));
  }

  @Test
  void rollbackRestoresTheCutAndReplaysItsRecordedMessages() {
    Simulation sim = new Simulation(ProcessGraph.named("mesh", 4, 3), 3, 300);
    sim.setRate(20);
    sim.batch(5, 50);
    SnapshotRun withTransit = null;
    for (SnapshotRun r : sim.runs()) {
      long recorded = r.pieces().values().stream().mapToLong(p -> p.cut().inFlightMessages()).sum();
      if (r.status() == SnapshotRun.Status.CONSISTENT && recorded > 0) {
        withTransit = r;
      }
    }
    assertThat(withTransit).as("a cut with messages in transit").isNotNull();
    sim.setRate(0);
    sim.advance(10_000);

    sim.rollback(withTransit.id);

    long replayed = 0;
    for (Transit t : sim.inTransit()) {
      assertThat(t.replay()).isTrue();
      replayed++;
    }
    long recorded = 0;
    for (var piece : withTransit.pieces().values()) {
      assertThat(sim.balance(piece.cut().workerId()))
          .isEqualTo(Money.decode(piece.state().state()));
      recorded += piece.cut().inFlightMessages();
    }
    assertThat(replayed).isEqualTo(recorded);
    sim.setRate(20);
    sim.advance(20_000);
    assertThat(sim.lastError()).isEmpty();
    assertThat(sim.moneyNow()).isEqualTo(sim.money());
    assertThat(sim.batch(5, 50)).isEqualTo(5);
  }

  @Test
  void anInconsistentCutCannotBeRolledBackTo() {
    Simulation sim = new Simulation(ProcessGraph.named("ring", 5, 1), 1, 400);
    sim.setFifo(false);
    sim.batch(20, 150);
    SnapshotRun bad = null;
    for (SnapshotRun r : sim.runs()) {
      if (r.status() == SnapshotRun.Status.INCONSISTENT) {
        bad = r;
      }
    }
    long id = bad.id;
    assertThatThrownBy(() -> sim.rollback(id))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("only a consistent cut can be rolled back to");
  }

  @Test
  void aSeedNamesOneRun() {
    Simulation a = new Simulation(ProcessGraph.named("random", 8, 5), 5, 250);
    Simulation b = new Simulation(ProcessGraph.named("random", 8, 5), 5, 250);
    a.batch(10, 100);
    b.batch(10, 100);
    for (String p : a.processes()) {
      assertThat(a.balance(p)).isEqualTo(b.balance(p));
    }
    assertThat(a.now()).isEqualTo(b.now());
  }

  @Test
  void refusesADisconnectedDrawingAndBadParameters() {
    assertThatThrownBy(() -> new Simulation(ProcessGraph.drawn(4, "1-2,3-4"), 1, 100))
        .hasMessageContaining("not connected");
    assertThatThrownBy(() -> ProcessGraph.drawn(13, "")).hasMessageContaining("2 to 12 processes");
    assertThatThrownBy(() -> ProcessGraph.drawn(3, "1-1")).hasMessageContaining("no such link");
    Simulation sim = new Simulation(ProcessGraph.drawn(3, "1-2, 2-3"), 1, 100);
    assertThatThrownBy(() -> sim.setDelay("p1", "p3", 10))
        .hasMessageContaining("no channel p1->p3");
    assertThatThrownBy(() -> sim.setRate(-1)).hasMessageContaining("0 to 1000");
    assertThatThrownBy(() -> sim.snapshot(List.of("p9"))).hasMessageContaining("no process p9");
  }
}
