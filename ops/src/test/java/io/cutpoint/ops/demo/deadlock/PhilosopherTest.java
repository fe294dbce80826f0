package io.cutpoint.ops.demo.deadlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CapturedState.Activity;
import io.cutpoint.client.engine.CapturedState.WaitFor;
import io.cutpoint.ops.demo.deadlock.Philosopher.Phase;
import java.util.List;
import org.junit.jupiter.api.Test;

class PhilosopherTest {

  @Test
  void fatalOrderHungryAtOnceLeavesEveryoneHoldingTheLeftForkAndWaitingForTheRightNeighbour() {
    SimulatedTable t = SimulatedTable.of(5, 1.0, Philosopher.UNLIMITED, true, 7);
    t.begin();
    t.run(10_000);
    assertThat(t.inTransit()).as("every request delivered and deferred").isZero();
    for (int i = 0; i < 5; i++) {
      Philosopher p = t.philosophers.get(i);
      assertThat(p.status().phase()).isEqualTo(Phase.WANTS_SECOND);
      assertThat(p.status().eaten()).isZero();
      CapturedState c = p.captureState(1);
      assertThat(c.activity()).isEqualTo(Activity.PASSIVE);
      assertThat(c.waitingFor())
          .containsExactly(new WaitFor("p" + (i + 1) % 5, "fork-" + (i + 1) % 5));
    }
  }

  @Test
  void safeOrderAlwaysFinishesEveryMealUnderAnyInterleaving() {
    for (long seed = 1; seed <= 300; seed++) {
      SimulatedTable t = SimulatedTable.of(2 + (int) (seed % 5), 0.0, 4, seed % 2 == 0, seed);
      t.begin();
      int steps = t.run(1_000_000);
      assertThat(steps).as("seed %d ends", seed).isLessThan(1_000_000);
      for (Philosopher p : t.philosophers) {
        assertThat(p.status().phase()).as("seed %d, %s", seed, p.id()).isEqualTo(Phase.DONE);
        assertThat(p.status().eaten()).isEqualTo(4);
        CapturedState c = p.captureState(seed);
        assertThat(c.activity()).isEqualTo(Activity.PASSIVE);
        assertThat(c.waitingFor()).isEmpty();
      }
      assertThat(t.inTransit()).isZero();
    }
  }

  @Test
  void fatalOrderSometimesGetsStuckAndThenEveryoneWaitsInARing() {
    int stuck = 0;
    for (long seed = 1; seed <= 200; seed++) {
      SimulatedTable t = SimulatedTable.of(3, 1.0, 3, false, seed);
      t.begin();
      t.run(1_000_000);
      boolean done = t.philosophers.stream().allMatch(p -> p.status().phase() == Phase.DONE);
      if (!done) {
        stuck++;
        for (int i = 0; i < 3; i++) {
          Philosopher p = t.philosophers.get(i);
          assertThat(p.status().phase()).as("seed %d", seed).isEqualTo(Phase.WANTS_SECOND);
          assertThat(p.captureState(1).waitingFor())
              .containsExactly(new WaitFor("p" + (i + 1) % 3, "fork-" + (i + 1) % 3));
        }
      }
    }
    assertThat(stuck).as("some interleavings deadlock, some do not").isBetween(1, 199);
  }

  @Test
  void declaresWhatItDoes() {
    Philosopher p = new Philosopher(1, 3, 1, 0.0, new Philosopher.Timing(5, 5, 0, false), 1);
    List<String> sent = new java.util.ArrayList<>();
    List<Runnable> timers = new java.util.ArrayList<>();
    p.wire(
        (to, payload) -> sent.add(to + ":" + payload[0] + ":" + payload[4]),
        (ms, a) -> timers.add(a));
    assertThat(p.captureState(1).activity()).as("thinking").isEqualTo(Activity.ACTIVE);
    p.begin();
    timers.remove(0).run(); // hungry: first fork 1 (its left, held), reach for fork 2
    assertThat(p.status().phase()).isEqualTo(Phase.HOLDS_FIRST);
    assertThat(p.captureState(2).activity())
        .as("about to reach for the second fork")
        .isEqualTo(Activity.ACTIVE);
    timers.remove(0).run();
    assertThat(sent).containsExactly("p2:1:2");
    assertThat(p.captureState(3))
        .satisfies(
            c -> {
              assertThat(c.activity()).isEqualTo(Activity.PASSIVE);
              assertThat(c.waitingFor()).containsExactly(new WaitFor("p2", "fork-2"));
            });
    p.onMessage("p0", 1, Philosopher.message(Philosopher.REQUEST, 1));
    assertThat(sent).as("fork 1 is in use: the request waits for the meal's end").hasSize(1);
    p.onMessage("p2", 1, Philosopher.message(Philosopher.FORK, 2));
    assertThat(p.status().phase()).isEqualTo(Phase.EATING);
    assertThat(p.captureState(4).activity()).isEqualTo(Activity.ACTIVE);
    timers.remove(0).run();
    assertThat(sent).containsExactly("p2:1:2", "p0:2:1");
    assertThat(p.status().phase()).isEqualTo(Phase.DONE);
    assertThat(p.captureState(5))
        .satisfies(
            c -> {
              assertThat(c.activity()).isEqualTo(Activity.PASSIVE);
              assertThat(c.waitingFor()).isEmpty();
            });
    p.onMessage("p2", 2, Philosopher.message(Philosopher.REQUEST, 2));
    assertThat(sent).as("done: a fork not in use is given at once").endsWith("p2:2:2");
  }

  @Test
  void captureAndRestoreRoundTrip() {
    SimulatedTable t = SimulatedTable.of(4, 0.0, 5, true, 11);
    t.begin();
    t.run(37);
    Philosopher p = t.philosophers.get(2);
    byte[] state = p.capture();
    Philosopher.Status before = p.status();
    Philosopher copy = new Philosopher(2, 4, 5, 0.0, new Philosopher.Timing(5, 5, 1, false), 99);
    copy.wire((to, payload) -> {}, (ms, a) -> {});
    copy.restore(state);
    assertThat(copy.status()).isEqualTo(before);
    assertThat(copy.capture()).isEqualTo(state);
    assertThatThrownBy(() -> copy.restore(new byte[3]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a philosopher's state");
  }

  @Test
  void aRequestForAForkItDoesNotHoldIsAProtocolViolation() {
    Philosopher p = new Philosopher(0, 3, 1, 0.0, new Philosopher.Timing(1, 1, 0, false), 1);
    p.wire((to, payload) -> {}, (ms, a) -> {});
    assertThatThrownBy(() -> p.onMessage("p1", 1, Philosopher.message(Philosopher.REQUEST, 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not hold");
    assertThatThrownBy(() -> p.onMessage("p1", 1, Philosopher.message(Philosopher.REQUEST, 2)))
        .hasMessageContaining("has no fork-2");
    assertThatThrownBy(() -> p.onMessage("p1", 1, new byte[2]))
        .hasMessageContaining("not a fork message");
    assertThatThrownBy(() -> new Philosopher(0, 1, 1, 0, new Philosopher.Timing(1, 1, 0, false), 1))
        .hasMessageContaining("at least 2");
    assertThatThrownBy(
            () -> new Philosopher(0, 3, 1, 1.5, new Philosopher.Timing(1, 1, 0, false), 1))
        .hasMessageContaining("[0, 1]");
  }
}
