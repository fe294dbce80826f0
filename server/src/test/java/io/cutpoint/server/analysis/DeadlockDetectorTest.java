package io.cutpoint.server.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.server.analysis.CutModel.Activity;
import io.cutpoint.server.analysis.CutModel.Wait;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeadlockDetectorTest {

  @Test
  void twoWorkersWaitingForEachOtherAreOneDeadlockedSet() {
    CutModel cut =
        CutModel.builder()
            .waiting("a", "b")
            .waiting("b", "a")
            .channel("a", "b")
            .channel("b", "a")
            .build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(verdict.deadlocked()).isTrue();
    assertThat(verdict.sets()).hasSize(1);
    Deadlock d = verdict.sets().get(0);
    assertThat(d.workers()).containsExactly("a", "b");
    assertThat(d.core()).containsExactly("a", "b");
    assertThat(d.cycle()).containsExactly("a", "b");
    assertThat(d.edges()).containsExactly(WaitsFor.of("a", "b"), WaitsFor.of("b", "a"));
    assertThat(verdict.unblockedByInFlight()).isEmpty();
  }

  @Test
  void threeCycleIsReportedStartingAtTheSmallestWorker() {
    CutModel cut = CutModel.builder().waiting("c", "a").waiting("a", "b").waiting("b", "c").build();

    Deadlock d = single(DeadlockDetector.detect(cut));

    assertThat(d.workers()).containsExactly("a", "b", "c");
    assertThat(d.cycle()).containsExactly("a", "b", "c");
    assertThat(d.edges())
        .containsExactly(WaitsFor.of("a", "b"), WaitsFor.of("b", "c"), WaitsFor.of("c", "a"));
  }

  @Test
  void aWorkerWaitingForItselfIsDeadlocked() {
    CutModel cut =
        CutModel.builder()
            .worker("solo", Activity.PASSIVE, new Wait("solo", "mutex"))
            .waiting("other")
            .build();

    Deadlock d = single(DeadlockDetector.detect(cut));

    assertThat(d.workers()).containsExactly("solo");
    assertThat(d.cycle()).containsExactly("solo");
    assertThat(d.edges()).containsExactly(new WaitsFor("solo", "solo", "mutex"));
  }

  @Test
  void waitersHangingOffACycleAreInItsSetButNotOnItsCycle() {
    // x waits for a (on the cycle), y waits for x: both wait, through a chain, for a cycle.
    CutModel cut =
        CutModel.builder()
            .waiting("a", "b")
            .waiting("b", "a")
            .waiting("x", "a")
            .waiting("y", "x")
            .waiting("free")
            .build();

    Deadlock d = single(DeadlockDetector.detect(cut));

    assertThat(d.workers()).containsExactly("a", "b", "x", "y");
    assertThat(d.core()).containsExactly("a", "b");
    assertThat(d.hangingWaiters()).containsExactly("x", "y");
    assertThat(d.cycle()).containsExactly("a", "b");
    assertThat(d.edges())
        .containsExactly(
            WaitsFor.of("a", "b"),
            WaitsFor.of("b", "a"),
            WaitsFor.of("x", "a"),
            WaitsFor.of("y", "x"));
  }

  @Test
  void andModelAWaiterNeedingADeadlockedPeerIsDeadlockedEvenIfItsOtherPeerIsFree() {
    // w needs both a (deadlocked) and free (not blocked): it needs every resource it waits for,
    // so it can never have them all. Under an OR model it would not be reported.
    CutModel cut =
        CutModel.builder()
            .waiting("a", "b")
            .waiting("b", "a")
            .waiting("w", "free", "a")
            .worker("free", Activity.ACTIVE)
            .build();

    Deadlock d = single(DeadlockDetector.detect(cut));

    assertThat(d.workers()).containsExactly("a", "b", "w");
    assertThat(d.edges()).contains(WaitsFor.of("w", "a")).doesNotContain(WaitsFor.of("w", "free"));
  }

  @Test
  void aWaitOnAFreeWorkerAloneIsNoDeadlock() {
    CutModel cut = CutModel.builder().waiting("w", "free").worker("free", Activity.ACTIVE).build();

    assertThat(DeadlockDetector.detect(cut).deadlocked()).isFalse();
  }

  @Test
  void aCycleWhoseAwaitedMessageIsInTransitIsNoDeadlock() {
    // b waits for a, and a's message to b is already recorded in transit: b will go on.
    CutModel cut =
        CutModel.builder()
            .waiting("a", "b")
            .waiting("b", "a")
            .channel("a", "b", 1, 12)
            .channel("b", "a")
            .build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(verdict.deadlocked()).isFalse();
    assertThat(verdict.sets()).isEmpty();
    assertThat(verdict.unblockedByInFlight()).containsExactly(WaitsFor.of("b", "a"));
  }

  @Test
  void aMessageInTransitFromAnotherPeerDoesNotUnblock() {
    // b waits for a, but the message in transit to b comes from c: the cycle stands.
    CutModel cut =
        CutModel.builder()
            .waiting("a", "b")
            .waiting("b", "a")
            .worker("c", Activity.ACTIVE)
            .channel("c", "b", 3, 30)
            .channel("a", "b")
            .build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(verdict.deadlocked()).isTrue();
    assertThat(single(verdict).workers()).containsExactly("a", "b");
    assertThat(verdict.unblockedByInFlight()).isEmpty();
  }

  @Test
  void aMessageInTransitAgainstTheWaitDirectionDoesNotUnblock() {
    // b waits for a, but the message in transit goes b -> a, to a, who waits for c, not for b.
    CutModel cut =
        CutModel.builder()
            .waiting("a", "c")
            .waiting("b", "a")
            .waiting("c", "b")
            .channel("b", "a", 1, 1)
            .channel("a", "b")
            .build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(single(verdict).cycle()).containsExactly("a", "c", "b");
    assertThat(verdict.unblockedByInFlight()).isEmpty();
  }

  @Test
  void eitherSideOfATwoCycleIsFreedByAMessageFromItsHolder() {
    CutModel onlyBToA =
        CutModel.builder().waiting("a", "b").waiting("b", "a").channel("b", "a", 1, 1).build();

    DeadlockVerdict verdict = DeadlockDetector.detect(onlyBToA);

    assertThat(verdict.deadlocked()).isFalse();
    assertThat(verdict.unblockedByInFlight()).containsExactly(WaitsFor.of("a", "b"));
  }

  @Test
  void anInFlightMessageAnswersOnlyTheWaitsOnItsSender() {
    // w waits for a and b; a's message is in transit, b is deadlocked with c: w stays deadlocked
    // through b, and only its wait on a is reported as unblocked.
    CutModel cut =
        CutModel.builder()
            .waiting("w", "a", "b")
            .worker("a", Activity.ACTIVE)
            .waiting("b", "c")
            .waiting("c", "b")
            .channel("a", "w", 1, 5)
            .build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(single(verdict).workers()).containsExactly("b", "c", "w");
    assertThat(verdict.unblockedByInFlight()).containsExactly(WaitsFor.of("w", "a"));
  }

  @Test
  void aWaiterWhoseOnlyWaitIsAnsweredInTransitIsNotBlocked() {
    CutModel cut =
        CutModel.builder()
            .waiting("w", "a")
            .waiting("v", "a", "b")
            .worker("a", Activity.ACTIVE)
            .worker("b", Activity.ACTIVE)
            .channel("a", "w", 1, 1)
            .channel("a", "v", 1, 1)
            .build();

    WaitForGraph graph = WaitForGraph.of(cut);

    assertThat(graph.blockedWorkers()).containsExactly("v");
    assertThat(graph.holdersOf("v")).containsExactly("b");
    assertThat(graph.unblockedByInFlight())
        .containsExactly(WaitsFor.of("v", "a"), WaitsFor.of("w", "a"));
  }

  @Test
  void noWaitsAtAllIsNoDeadlock() {
    CutModel cut =
        CutModel.builder()
            .worker("a", Activity.ACTIVE)
            .worker("b", Activity.PASSIVE)
            .channel("a", "b", 2, 2)
            .build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(verdict.deadlocked()).isFalse();
    assertThat(verdict.sets()).isEmpty();
    assertThat(verdict.unblockedByInFlight()).isEmpty();
    assertThat(verdict.deadlockedWorkers()).isEmpty();
  }

  @Test
  void aChainEndingAtAWorkerWithoutWaitsIsNoDeadlock() {
    CutModel cut = CutModel.builder().waiting("a", "b").waiting("b", "c").waiting("c").build();

    assertThat(DeadlockDetector.detect(cut).deadlocked()).isFalse();
  }

  @Test
  void aWaitOnAPeerOutsideTheCutIsNeverADeadlock() {
    CutModel cut = CutModel.builder().waiting("a", "ghost").build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(verdict.deadlocked()).isFalse();
  }

  @Test
  void twoDisjointCyclesAreTwoSetsOrderedBySmallestWorker() {
    CutModel cut =
        CutModel.builder()
            .waiting("q", "p")
            .waiting("p", "q")
            .waiting("b", "c")
            .waiting("c", "d")
            .waiting("d", "b")
            .build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(verdict.sets()).hasSize(2);
    assertThat(verdict.sets().get(0).workers()).containsExactly("b", "c", "d");
    assertThat(verdict.sets().get(0).cycle()).containsExactly("b", "c", "d");
    assertThat(verdict.sets().get(1).workers()).containsExactly("p", "q");
    assertThat(verdict.sets().get(1).cycle()).containsExactly("p", "q");
    assertThat(verdict.deadlockedWorkers()).containsExactly("b", "c", "d", "p", "q");
  }

  @Test
  void aWaiterOnTwoCyclesIsInBothSets() {
    CutModel cut =
        CutModel.builder()
            .waiting("a", "b")
            .waiting("b", "a")
            .waiting("c", "d")
            .waiting("d", "c")
            .waiting("w", "a", "c")
            .build();

    DeadlockVerdict verdict = DeadlockDetector.detect(cut);

    assertThat(verdict.sets())
        .extracting(Deadlock::workers)
        .map(List::copyOf)
        .containsExactly(List.of("a", "b", "w"), List.of("c", "d", "w"));
  }

  @Test
  void theReportedCycleIsAShortestOneThroughTheSmallestWorker() {
    // a -> b -> c -> a and a -> c -> a: the shortest cycle through a is a, c.
    CutModel cut =
        CutModel.builder().waiting("a", "b", "c").waiting("b", "c").waiting("c", "a").build();

    Deadlock d = single(DeadlockDetector.detect(cut));

    assertThat(d.core()).containsExactly("a", "b", "c");
    assertThat(d.cycle()).containsExactly("a", "c");
  }

  @Test
  void resourcesNamedByTheApplicationAreCarriedIntoTheEdges() {
    CutModel cut =
        CutModel.builder()
            .worker("p0", Activity.PASSIVE, new Wait("p1", "fork-1"))
            .worker("p1", Activity.PASSIVE, new Wait("p0", "fork-0"))
            .build();

    assertThat(single(DeadlockDetector.detect(cut)).edges())
        .containsExactly(new WaitsFor("p0", "p1", "fork-1"), new WaitsFor("p1", "p0", "fork-0"));
  }

  @Test
  void theSameInputGivesTheSameReportWhateverTheDeclarationOrder() {
    CutModel one =
        CutModel.builder().waiting("b", "c", "a").waiting("a", "b").waiting("c", "b").build();
    CutModel two =
        CutModel.builder().waiting("c", "b").waiting("a", "b").waiting("b", "a", "c").build();

    assertThat(DeadlockDetector.detect(one)).isEqualTo(DeadlockDetector.detect(two));
  }

  @Test
  void aLongChainIntoACycleNeedsNoDeepRecursion() {
    CutModel.Builder b = CutModel.builder().waiting("w000000", "w000001");
    int n = 50_000;
    for (int i = 1; i < n; i++) {
      b.waiting(String.format("w%06d", i), String.format("w%06d", i + 1));
    }
    b.waiting(String.format("w%06d", n), String.format("w%06d", n - 1));

    Deadlock d = single(DeadlockDetector.detect(b.build()));

    assertThat(d.core()).hasSize(2);
    assertThat(d.workers()).hasSize(n + 1);
  }

  private static Deadlock single(DeadlockVerdict verdict) {
    assertThat(verdict.sets()).hasSize(1);
    return verdict.sets().get(0);
  }
}
