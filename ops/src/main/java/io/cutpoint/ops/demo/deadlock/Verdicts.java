package io.cutpoint.ops.demo.deadlock;

import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.DeadlockSet;
import io.cutpoint.api.v1.WaitEdge;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an {@code AnalyzeResponse} of a dining table: the cycle in words, and what the table
 * expects. Pure.
 */
public final class Verdicts {

  private Verdicts() {}

  /** The resource of each step of the cycle (the last step back to the first worker included). */
  public static List<String> resources(DeadlockSet set) {
    List<String> cycle = set.getCycleList();
    List<String> out = new ArrayList<>();
    for (int k = 0; k < cycle.size(); k++) {
      String waiter = cycle.get(k);
      String holder = cycle.get((k + 1) % cycle.size());
      out.add(
          set.getEdgesList().stream()
              .filter(e -> e.getWaiter().equals(waiter) && e.getHolder().equals(holder))
              .map(WaitEdge::getResource)
              .findFirst()
              .orElse("?"));
    }
    return out;
  }

  /** {@code p0 -> p1 -> p0}: the cycle, closed. */
  public static String cycleText(DeadlockSet set) {
    List<String> cycle = set.getCycleList();
    return cycle.isEmpty() ? "" : String.join(" -> ", cycle) + " -> " + cycle.get(0);
  }

  /** {@code deadlock in snapshot 7: p0 -> p1 -> p0 (waiting for fork-1, fork-0)}. */
  public static String deadlockLine(long snapshotId, DeadlockSet set) {
    return "deadlock in snapshot "
        + snapshotId
        + ": "
        + cycleText(set)
        + " (waiting for "
        + String.join(", ", resources(set))
        + ")";
  }

  /**
   * True when {@code set} is the deadlock a table of {@code n} philosophers can have: all of them,
   * each waiting for its right neighbour's fork, {@code pi} for {@code fork-(i+1)}.
   */
  public static boolean isWholeTable(DeadlockSet set, int n) {
    List<String> expected = new ArrayList<>();
    List<String> forks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      expected.add(Philosopher.id(i));
      forks.add("fork-" + (i + 1) % n);
    }
    return set.getWorkersList().equals(expected)
        && set.getCycleList().equals(expected)
        && resources(set).equals(forks)
        && set.getEdgesCount() == n;
  }

  /** {@code p1->p0, p3->p2}: the channels with messages in transit. */
  public static String channels(List<ChannelRef> channels) {
    return String.join(", ", channels.stream().map(c -> c.getFrom() + "->" + c.getTo()).toList());
  }

  /** One line for a snapshot without deadlock or termination. */
  public static String quietLine(AnalyzeResponse r) {
    StringBuilder b = new StringBuilder("snapshot " + r.getSnapshotId() + ": no deadlock");
    if (r.getDeadlock().getUnblockedByInFlightCount() > 0) {
      b.append(" (")
          .append(r.getDeadlock().getUnblockedByInFlightCount())
          .append(" wait(s) answered by a fork in transit)");
    }
    b.append(", not terminated (")
        .append(r.getTermination().getActiveWorkersCount())
        .append(" active");
    if (r.getTermination().getNonEmptyChannelsCount() > 0) {
      b.append(", in transit on ").append(channels(r.getTermination().getNonEmptyChannelsList()));
    }
    return b.append(')').toString();
  }
}
