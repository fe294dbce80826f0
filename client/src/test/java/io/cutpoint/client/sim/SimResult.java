package io.cutpoint.client.sim;

import java.util.List;
import java.util.SortedMap;

/**
 * What one simulated schedule did and every problem the checks found. {@link #assertOk()} fails
 * with the seed and how to replay it. {@code cuts} holds, for every snapshot that completed at
 * every worker, the content of its cut written out (balances, counters, recorded messages): two
 * runs of one schedule recorded the same cuts when these are equal.
 */
public record SimResult(
    String scenario,
    long seed,
    Fault fault,
    Topology topology,
    Stats stats,
    List<Problem> problems,
    SortedMap<Long, String> cuts,
    List<String> trace) {

  /** What went wrong with a schedule. */
  public enum ProblemKind {
    /** A snapshot did not complete at every worker (or a worker failed it). */
    INCOMPLETE,
    /** {@code CutVerifier} found a violation in an assembled cut. */
    CUT_VIOLATION,
    /** A cut's balances plus recorded money in flight differ from the initial total. */
    NOT_CONSERVED,
    /** An engine threw (a protocol violation, for instance). */
    ENGINE_ERROR,
    /** The run itself is wrong: money lost at the end, snapshots still in flight, no end. */
    RUN
  }

  public record Problem(ProblemKind kind, Long snapshotId, String message) {
    @Override
    public String toString() {
      return kind + (snapshotId == null ? "" : " S=" + snapshotId) + ": " + message;
    }
  }

  /**
   * Counts for a run.
   *
   * @param events simulated events executed
   * @param items data messages and markers put on channels
   * @param snapshots snapshots started
   * @param completedCuts snapshots every worker completed
   * @param aborted snapshots the schedule aborted or a rollback cut short
   * @param rollbacks rollbacks carried out
   * @param completedAfterRollback snapshots completed everywhere after the first rollback
   * @param recordedMessages messages recorded in flight over every completed piece
   * @param redundantStarts initiator start commands that found a marker got there first
   * @param maxConcurrent most snapshots in flight at one worker at once
   */
  public record Stats(long events, long items, int snapshots, int completedCuts, int aborted,
      int rollbacks, int completedAfterRollback,
      long recordedMessages, long redundantStarts, int maxConcurrent) {}

  public boolean ok() {
    return problems.isEmpty();
  }

  public boolean has(ProblemKind kind) {
    return problems.stream().anyMatch(p -> p.kind() == kind);
  }

  /** Seed, scenario, the problems and the replay hint. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    b.append("schedule ").append(scenario).append(" seed=").append(seed).append(" fault=")
        .append(fault).append(" topology=").append(topology.name()).append(' ')
        .append(topology.channels()).append('\n');
    if (isKind(scenario)) {
      b.append("  replay: -Dcutpoint.sim.replay=").append(scenario).append(':').append(seed)
          .append(fault == Fault.NONE ? "" : ":" + fault)
          .append(" -Dtest=SimulationReplayTest (prints the event trace)\n");
    } else {
      b.append("  replay: new Simulation(\"").append(scenario).append("\", <this topology>, ")
          .append(seed).append("L, config, Fault.").append(fault).append(", true).run()\n");
    }
    problems.stream().limit(20).forEach(p -> b.append("  ").append(p).append('\n'));
    if (problems.size() > 20) {
      b.append("  ... ").append(problems.size() - 20).append(" more\n");
    }
    return b.toString();
  }

  private static boolean isKind(String scenario) {
    for (TopologyKind k : TopologyKind.values()) {
      if (k.name().equals(scenario)) {
        return true;
      }
    }
    return false;
  }

  public void assertOk() {
    if (!ok()) {
      throw new AssertionError(describe());
    }
  }
}
