package io.cutpoint.ops.demo.deadlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CapturedState.WaitFor;
import io.cutpoint.ops.demo.deadlock.Philosopher.Phase;
import io.cutpoint.server.analysis.CutAnalysis;
import io.cutpoint.server.analysis.CutModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The philosophers' declarations, fed to the coordinator's own analysis at every step of seeded
 * simulations (each step is a true global state), give the table's ground truth: a deadlock only
 * when every philosopher holds its first fork and waits for its second, and then always (with two
 * philosophers, once their crossing requests are delivered); termination exactly when nothing can
 * move any more.
 */
class DeclarationsMatchAnalysisTest {

  @Test
  void analysisOfTheDeclarationsAgreesWithTheTableAtEveryStep() {
    int deadlocks = 0;
    int finished = 0;
    for (long seed = 1; seed <= 150; seed++) {
      int n = 2 + (int) (seed % 4);
      SimulatedTable t = SimulatedTable.of(n, seed % 3 == 0 ? 0.0 : 0.7, 3, seed % 2 == 0, seed);
      t.begin();
      boolean moved = true;
      while (moved) {
        CutAnalysis a = CutAnalysis.of(cut(t));
        boolean allWaitForSecond =
            t.philosophers.stream().allMatch(p -> p.status().phase() == Phase.WANTS_SECOND);
        String state =
            "seed " + seed + ": " + t.philosophers.stream().map(Philosopher::status).toList();
        if (a.deadlock().deadlocked()) {
          assertThat(allWaitForSecond).as("no phantom deadlock; %s", state).isTrue();
        }
        if (allWaitForSecond && (n > 2 || t.inTransit() == 0)) {
          // With two philosophers their requests cross: one in transit from the holder to the
          // waiter counts as a possible answer (the in-flight rule reads no payloads), until
          // delivered.
          assertThat(a.deadlock().deadlocked()).as("no missed deadlock; %s", state).isTrue();
        }
        if (a.deadlock().deadlocked()) {
          assertThat(a.deadlock().sets()).hasSize(1);
          assertThat(a.deadlock().sets().get(0).workers()).hasSize(n);
        }
        moved = t.step();
        assertThat(a.termination().terminated())
            .as("seed %d: terminated exactly when nothing can move", seed)
            .isEqualTo(!moved);
      }
      boolean done = t.philosophers.stream().allMatch(p -> p.status().phase() == Phase.DONE);
      CutAnalysis end = CutAnalysis.of(cut(t));
      assertThat(end.deadlock().deadlocked())
          .as("seed %d: stuck short of the meals is a deadlock", seed)
          .isEqualTo(!done);
      deadlocks += done ? 0 : 1;
      finished += done ? 1 : 0;
    }
    assertThat(deadlocks).as("the fatal order deadlocked in some runs").isPositive();
    assertThat(finished).isPositive();
  }

  @Test
  void aForkInTransitIsWhatSeparatesAWaitingTableFromATerminatedOne() {
    Philosopher.Timing timing = new Philosopher.Timing(1, 1, 0, true);
    SimulatedTable t =
        new SimulatedTable(
            List.of(
                new Philosopher(0, 2, 1, 0.0, timing, 1), new Philosopher(1, 2, 0, 0.0, timing, 2)),
            5);
    t.begin(); // p0 holds fork 0 and reaches for fork 1; p1 has no meal to eat
    t.step(); // the reach: p0 asks p1 for fork 1
    t.step(); // p1 is done and gives fork 1 at once: it is in transit to p0
    assertThat(t.inTransit("p1", "p0")).isEqualTo(1);
    assertThat(t.philosophers.get(0).captureState(1).waitingFor())
        .containsExactly(new WaitFor("p1", "fork-1"));

    CutAnalysis honest = CutAnalysis.of(cut(t));
    assertThat(honest.deadlock().deadlocked()).isFalse();
    assertThat(honest.deadlock().unblockedByInFlight()).hasSize(1);
    assertThat(honest.termination().terminated())
        .as("every philosopher is passive, but a fork is on its way")
        .isFalse();

    // Without the channel states (asking each worker, no cut) the same declarations look
    // terminated.
    CutModel.Builder blind = CutModel.builder();
    cut(t).workers().values().forEach(blind::worker);
    assertThat(CutAnalysis.of(blind.build()).termination().terminated()).isTrue();

    t.run(100);
    assertThat(t.philosophers.get(0).status().eaten())
        .as("the fork arrived and p0 ate")
        .isEqualTo(1);
    assertThat(CutAnalysis.of(cut(t)).termination().terminated()).isTrue();
  }

  /** The table as the coordinator would see it in a cut taken now. */
  static CutModel cut(SimulatedTable t) {
    CutModel.Builder b = CutModel.builder();
    int n = t.philosophers.size();
    for (Philosopher p : t.philosophers) {
      CapturedState c = p.captureState(1);
      List<CutModel.Wait> waits =
          c.waitingFor().stream()
              .map((WaitFor w) -> new CutModel.Wait(w.peer(), w.resource()))
              .toList();
      b.worker(
          new CutModel.Worker(
              p.id(), CutModel.Activity.valueOf(c.activity().name()), waits, c.state().length));
    }
    for (int i = 0; i < n; i++) {
      for (String to : Philosopher.neighbours(i, n)) {
        String from = Philosopher.id(i);
        b.channel(from, to, t.inTransit(from, to), 5L * t.inTransit(from, to));
      }
    }
    return b.build();
  }
}
