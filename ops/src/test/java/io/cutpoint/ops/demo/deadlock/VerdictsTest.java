package io.cutpoint.ops.demo.deadlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.DeadlockReport;
import io.cutpoint.api.v1.DeadlockSet;
import io.cutpoint.api.v1.TerminationReport;
import io.cutpoint.api.v1.WaitEdge;
import org.junit.jupiter.api.Test;

class VerdictsTest {

  @Test
  void namesTheCycleWithTheResourceOfEachStep() {
    DeadlockSet set = table(3);
    assertThat(Verdicts.cycleText(set)).isEqualTo("p0 -> p1 -> p2 -> p0");
    assertThat(Verdicts.resources(set)).containsExactly("fork-1", "fork-2", "fork-0");
    assertThat(Verdicts.deadlockLine(7, set))
        .isEqualTo(
            "deadlock in snapshot 7: p0 -> p1 -> p2 -> p0 (waiting for fork-1, fork-2, fork-0)");
    assertThat(Verdicts.isWholeTable(set, 3)).isTrue();
  }

  @Test
  void aCycleThatIsNotTheWholeTableIsRecognised() {
    assertThat(Verdicts.isWholeTable(table(3), 4)).as("a table of 4 has a longer cycle").isFalse();
    DeadlockSet reversed =
        DeadlockSet.newBuilder()
            .addAllWorkers(java.util.List.of("p0", "p1"))
            .addCycle("p0")
            .addCycle("p1")
            .addEdges(edge("p0", "p1", "fork-0"))
            .addEdges(edge("p1", "p0", "fork-1"))
            .build();
    assertThat(Verdicts.isWholeTable(reversed, 2)).as("wrong forks").isFalse();
    DeadlockSet unnamed = DeadlockSet.newBuilder().addCycle("p0").addCycle("p1").build();
    assertThat(Verdicts.resources(unnamed)).containsExactly("?", "?");
    assertThat(Verdicts.cycleText(DeadlockSet.getDefaultInstance())).isEmpty();
  }

  @Test
  void aQuietSnapshotSaysWhatIsActiveAndInTransit() {
    AnalyzeResponse r =
        AnalyzeResponse.newBuilder()
            .setSnapshotId(4)
            .setDeadlock(
                DeadlockReport.newBuilder().addUnblockedByInFlight(edge("p0", "p1", "fork-1")))
            .setTermination(
                TerminationReport.newBuilder()
                    .addActiveWorkers("p2")
                    .addNonEmptyChannels(ChannelRef.newBuilder().setFrom("p1").setTo("p0")))
            .build();
    assertThat(Verdicts.quietLine(r))
        .isEqualTo(
            "snapshot 4: no deadlock (1 wait(s) answered by a fork in transit), not terminated (1 active, in transit on p1->p0)");
  }

  private static DeadlockSet table(int n) {
    DeadlockSet.Builder b = DeadlockSet.newBuilder();
    for (int i = 0; i < n; i++) {
      b.addWorkers("p" + i)
          .addCycle("p" + i)
          .addEdges(edge("p" + i, "p" + (i + 1) % n, "fork-" + (i + 1) % n));
    }
    return b.build();
  }

  private static WaitEdge edge(String waiter, String holder, String resource) {
    return WaitEdge.newBuilder().setWaiter(waiter).setHolder(holder).setResource(resource).build();
  }
}
