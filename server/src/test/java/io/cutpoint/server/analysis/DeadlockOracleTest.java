package io.cutpoint.server.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.server.analysis.CutModel.Activity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Checks {@link DeadlockDetector} on thousands of seeded random cuts against an independent
 * definition of the AND model: graph reduction. Repeatedly let a worker go on when every peer it
 * still waits for can go on (a worker with no remaining wait goes on at once); the workers left
 * over are exactly the deadlocked ones.
 */
class DeadlockOracleTest {

  @Test
  void deadlockedWorkersAreExactlyThoseGraphReductionCannotFree() {
    Random random = new Random(20261129L);
    int withDeadlock = 0;
    int withUnblocked = 0;
    for (int round = 0; round < 3000; round++) {
      CutModel cut = randomCut(random);
      WaitForGraph graph = WaitForGraph.of(cut);
      DeadlockVerdict verdict = DeadlockDetector.detect(cut);

      assertThat(verdict.deadlockedWorkers())
          .as("round %d: %s", round, cut)
          .isEqualTo(stuck(graph));
      for (Deadlock d : verdict.sets()) {
        assertCycleIsReal(d, graph);
        assertThat(graph.edges()).containsAll(d.edges());
      }
      withDeadlock += verdict.deadlocked() ? 1 : 0;
      withUnblocked += verdict.unblockedByInFlight().isEmpty() ? 0 : 1;
    }
    // The generator must exercise both outcomes, or the comparison proves little.
    assertThat(withDeadlock).isBetween(300, 2700);
    assertThat(withUnblocked).isGreaterThan(300);
  }

  @Test
  void theOracleItselfSeesACycleAndAFreeChain() {
    CutModel cycle =
        CutModel.builder().waiting("a", "b").waiting("b", "a").waiting("c", "a").build();
    CutModel chain = CutModel.builder().waiting("a", "b").waiting("b").build();

    assertThat(stuck(WaitForGraph.of(cycle))).containsExactly("a", "b", "c");
    assertThat(stuck(WaitForGraph.of(chain))).isEmpty();
  }

  private static void assertCycleIsReal(Deadlock d, WaitForGraph graph) {
    List<String> cycle = d.cycle();
    assertThat(cycle).isNotEmpty().doesNotHaveDuplicates();
    assertThat(cycle.get(0)).isEqualTo(d.core().first());
    for (int i = 0; i < cycle.size(); i++) {
      String waiter = cycle.get(i);
      String holder = cycle.get((i + 1) % cycle.size());
      assertThat(graph.holdersOf(waiter)).as("edge %s -> %s", waiter, holder).contains(holder);
    }
  }

  /** Graph reduction: what cannot be freed. */
  static SortedSet<String> stuck(WaitForGraph graph) {
    Set<String> free = new HashSet<>();
    boolean changed = true;
    while (changed) {
      changed = false;
      for (String node : graph.nodes()) {
        if (!free.contains(node) && free.containsAll(graph.holdersOf(node))) {
          free.add(node);
          changed = true;
        }
      }
    }
    SortedSet<String> left = new TreeSet<>(graph.nodes());
    left.removeAll(free);
    return left;
  }

  private static CutModel randomCut(Random random) {
    int n = 1 + random.nextInt(9);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add("w" + i);
    }
    CutModel.Builder b = CutModel.builder();
    for (String id : ids) {
      int waits = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(2);
      List<CutModel.Wait> list = new ArrayList<>();
      for (int k = 0; k < waits; k++) {
        // Now and then a wait on a peer outside the cut.
        String peer = random.nextInt(20) == 0 ? "outside" : ids.get(random.nextInt(n));
        list.add(new CutModel.Wait(peer, random.nextBoolean() ? "" : "r" + random.nextInt(3)));
      }
      b.worker(new CutModel.Worker(id, Activity.values()[random.nextInt(3)], list, 0));
    }
    for (String from : ids) {
      for (String to : ids) {
        if (random.nextInt(3) == 0) {
          long msgs = random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 0;
          b.channel(from, to, msgs, msgs * 8);
        }
      }
    }
    return b.build();
  }
}
