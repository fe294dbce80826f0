package io.cutpoint.server.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs the dining philosophers and checks, at every step of every table, that the deadlock detector
 * agrees with the ground truth of the simulation (no move possible).
 */
class DiningPhilosophersTest {

  @Test
  void theDetectorFindsADeadlockExactlyWhenTheTableIsStuck() {
    int stuckTables = 0;
    int fatalTables = 0;
    int cutsUnblockedByAForkInTransit = 0;
    for (long seed = 0; seed < 300; seed++) {
      DiningPhilosophers table = new DiningPhilosophers(2 + (int) (seed % 6), seed, 0.5);
      fatalTables += table.fatalOrder() ? 1 : 0;
      for (int i = 0; i < 400; i++) {
        DeadlockVerdict verdict = DeadlockDetector.detect(table.cut());
        assertThat(verdict.deadlocked())
            .as("seed %d step %d: %s", seed, table.steps(), table.philosophers())
            .isEqualTo(table.stuck());
        cutsUnblockedByAForkInTransit += verdict.unblockedByInFlight().isEmpty() ? 0 : 1;
        if (!table.step()) {
          break;
        }
      }
      if (table.stuck()) {
        stuckTables++;
        assertThat(table.fatalOrder()).as("seed %d", seed).isTrue();
        assertWholeRingDeadlocked(table);
      }
    }
    assertThat(fatalTables).isBetween(100, 200);
    assertThat(stuckTables).isGreaterThan(20);
    assertThat(cutsUnblockedByAForkInTransit).isGreaterThan(100);
  }

  private static void assertWholeRingDeadlocked(DiningPhilosophers table) {
    DeadlockVerdict verdict = DeadlockDetector.detect(table.cut());
    assertThat(verdict.sets()).hasSize(1);
    Deadlock d = verdict.sets().get(0);
    List<String> ring = new ArrayList<>();
    for (int p = 0; p < table.size(); p++) {
      ring.add(DiningPhilosophers.id(p));
    }
    assertThat(d.cycle()).isEqualTo(ring);
    assertThat(d.edges()).hasSize(table.size());
    assertThat(d.edges()).allSatisfy(e -> assertThat(e.resource()).startsWith("fork-"));
  }

  @Test
  void theSafeLockOrderNeverDeadlocks() {
    for (long seed = 0; seed < 100; seed++) {
      DiningPhilosophers table = new DiningPhilosophers(2 + (int) (seed % 5), seed, 0.0);
      assertThat(table.fatalOrder()).isFalse();
      assertThat(table.runUntilStuck(2000)).as("seed %d", seed).isFalse();
    }
  }

  @Test
  void theSameSeedPlaysTheSameGame() {
    DiningPhilosophers one = new DiningPhilosophers(5, 42, 1.0);
    DiningPhilosophers two = new DiningPhilosophers(5, 42, 1.0);
    for (int i = 0; i < 200; i++) {
      assertThat(one.philosophers()).isEqualTo(two.philosophers());
      assertThat(one.step()).isEqualTo(two.step());
    }
  }

  @Test
  void theFatalOrderDeadlocksSoonerOrLater() {
    int stuck = 0;
    for (long seed = 0; seed < 50; seed++) {
      stuck += new DiningPhilosophers(3, seed, 1.0).runUntilStuck(5000) ? 1 : 0;
    }
    assertThat(stuck).isGreaterThan(40);
  }

  @Test
  void aTableNeedsTwoPhilosophersAndAChanceBetweenZeroAndOne() {
    assertThatThrownBy(() -> new DiningPhilosophers(1, 0, 0.5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DiningPhilosophers(3, 0, 1.5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
