package io.cutpoint.server.membership;

/**
 * The outcome of removing a worker from the coordinator's table.
 *
 * @param outcome what happened
 * @param message the outcome in words
 */
public record WorkerRemoval(Outcome outcome, String message) {

  /** What happened. */
  public enum Outcome {
    /** Forgotten: it left the topology, the counts and the cluster view. */
    REMOVED,
    /** No such worker. */
    UNKNOWN,
    /** It has a live session. */
    LIVE,
    /** A rollback needs it. */
    NEEDED
  }
}
