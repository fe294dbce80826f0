package io.cutpoint.client.sim;

import java.util.List;
import java.util.SortedMap;

/**
 * What one simulated schedule did and every problem the checks found. {@link #assertOk()} fails
 * with the seed and how to replay it. {@code cuts} holds, for every snapshot that completed at
 * every worker, the content of its cut written out (balances, counters, recorded messages): two
 * runs of one schedule recorded the same cuts when these are equal.
 *
 * @param variant what ran: for an engine-level schedule ({@link EngineSimulation}) its {@link
 *     Fault}, written {@code ENGINE} when NONE; for a worker-level one (the server module's {@code
 *     io.cutpoint.server.sim.Simulation}) its {@code Variant}, written empty when NONE. It ends the
 *     replay spec {@code KIND:SEED[:VARIANT]}.
 * @param workers counts of the worker-level schedules (zeros for engine-level ones)
 */
public record SimResult(
    String scenario,
    long seed,
    String variant,
    Topology topology,
    Stats stats,
    WorkerStats workers,
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
    RUN,
    /** The application was handed a message of an old epoch that was not a replay. */
    OLD_EPOCH,
    /** A channel delivered a message twice, out of order, or not at all. */
    DELIVERY,
    /** A worker core refused a stream that a correct sender wrote (DATA_LOSS, MALFORMED). */
    REFUSED,
    /** Money is not conserved once the system is quiet after the rollbacks. */
    QUIET_NOT_CONSERVED
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
   * @param overtakingMarkers early copies of markers that arrived while data sent before them was
   *     still on its way (engine-level schedules on {@link MarkerLane#EARLY_COPIES})
   * @param readAheadMessages data messages handed to the engine with early copies, read ahead of
   *     their delivery
   */
  public record Stats(
      long events,
      long items,
      int snapshots,
      int completedCuts,
      int aborted,
      int rollbacks,
      int completedAfterRollback,
      long recordedMessages,
      long redundantStarts,
      int maxConcurrent,
      long overtakingMarkers,
      long readAheadMessages) {}

  /**
   * Counts of a worker-level schedule: what its faults did.
   *
   * @param frames frames written, resends included
   * @param resentFrames frames written again after a reconnect
   * @param reconnects streams opened again after one ended
   * @param duplicateItems items a core received at a position it had already delivered
   * @param oldEpochFrames frames that reached a core in a newer epoch than theirs
   * @param notAnnounced streams refused for carrying an epoch the core had not been told of
   * @param crashes workers lost and restarted with a fresh state
   * @param rollbacks rollbacks finished (every worker resumed)
   * @param rollbacksOverPending rollbacks started while snapshots were pending
   * @param maxPending most snapshots pending at the coordinator at once
   * @param replayed recorded messages delivered again by a restore
   * @param replayRaces channels on which, as a worker resumed, new frames were parked while
   *     recorded messages waited to be replayed (the replay must go first)
   * @param coordinatorRestarts times the coordinator was killed and started again over its store
   * @param restartsInRollback restarts while the store held a rollback in progress (the new
   *     coordinator resumes it)
   * @param markersTakenAhead markers a core took as it read them, with data queued before them
   * @param handRollbacks rollbacks an operator asked for after a coordinator was killed before it
   *     rolled back for a fresh worker (recovery.md)
   */
  public record WorkerStats(
      long frames,
      long resentFrames,
      long reconnects,
      long duplicateItems,
      long oldEpochFrames,
      long notAnnounced,
      long crashes,
      long rollbacks,
      long rollbacksOverPending,
      int maxPending,
      long replayed,
      long replayRaces,
      long coordinatorRestarts,
      long restartsInRollback,
      long markersTakenAhead,
      long handRollbacks) {

    public static final WorkerStats NONE =
        new WorkerStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    public WorkerStats plus(WorkerStats o) {
      return new WorkerStats(
          frames + o.frames,
          resentFrames + o.resentFrames,
          reconnects + o.reconnects,
          duplicateItems + o.duplicateItems,
          oldEpochFrames + o.oldEpochFrames,
          notAnnounced + o.notAnnounced,
          crashes + o.crashes,
          rollbacks + o.rollbacks,
          rollbacksOverPending + o.rollbacksOverPending,
          Math.max(maxPending, o.maxPending),
          replayed + o.replayed,
          replayRaces + o.replayRaces,
          coordinatorRestarts + o.coordinatorRestarts,
          restartsInRollback + o.restartsInRollback,
          markersTakenAhead + o.markersTakenAhead,
          handRollbacks + o.handRollbacks);
    }
  }

  public boolean ok() {
    return problems.isEmpty();
  }

  public boolean has(ProblemKind kind) {
    return problems.stream().anyMatch(p -> p.kind() == kind);
  }

  /** Seed, scenario, the problems and the replay hint. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    b.append("schedule ")
        .append(scenario)
        .append(" seed=")
        .append(seed)
        .append(" variant=")
        .append(variant.isEmpty() ? "NONE" : variant)
        .append(" topology=")
        .append(topology.name())
        .append(' ')
        .append(topology.channels())
        .append('\n');
    if (isKind(scenario)) {
      b.append("  replay: -Dcutpoint.sim.replay=")
          .append(scenario)
          .append(':')
          .append(seed)
          .append(variant.isEmpty() ? "" : ":" + variant)
          .append(" -Dtest=SimulationReplayTest -pl ")
          .append(engineLevel() ? "client" : "server")
          .append(" (prints the event trace)\n");
    } else {
      b.append("  replay: the same topology with seed ")
          .append(seed)
          .append(" and a trace (withTrace = true)\n");
    }
    problems.stream().limit(20).forEach(p -> b.append("  ").append(p).append('\n'));
    if (problems.size() > 20) {
      b.append("  ... ").append(problems.size() - 20).append(" more\n");
    }
    return b.toString();
  }

  /** Engine-level schedules run in the client module, worker-level ones in the server's. */
  private boolean engineLevel() {
    if (variant.equals("ENGINE")) {
      return true;
    }
    for (Fault f : Fault.values()) {
      if (f.name().equals(variant)) {
        return true;
      }
    }
    return false;
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
