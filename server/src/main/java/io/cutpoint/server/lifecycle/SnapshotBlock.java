package io.cutpoint.server.lifecycle;

import java.util.List;

/**
 * Why a snapshot cannot start, when the cause is a state of the cluster that does not pass by
 * itself (unlike a minimum pause or too many pending snapshots).
 *
 * @param reason the cause, from a small set (a metric tag)
 * @param workers the workers that cause it (lost or not running), sorted; empty when none do
 * @param message the cause in words
 */
public record SnapshotBlock(Reason reason, List<String> workers, String message) {

  /** The causes. */
  public enum Reason {
    /** No worker has joined. */
    NO_WORKERS,
    /** Known workers have no live session. */
    WORKERS_LOST,
    /** Workers are halted or restored (held by a rollback). */
    WORKERS_NOT_RUNNING,
    /** Channels are declared by one end only. */
    TOPOLOGY_OPEN,
    /** A rollback runs. */
    ROLLBACK_IN_PROGRESS,
    /** A rollback failed and was neither retried nor cancelled. */
    ROLLBACK_FAILED,
    /** An operator paused the periodic snapshots. */
    PAUSED,
    /** The store cannot write. */
    STORE_UNAVAILABLE;

    /** The reason as a metric tag value: {@code workers_lost}. */
    public String tag() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public SnapshotBlock {
    workers = List.copyOf(workers);
  }

  /** A block that no worker in particular causes. */
  public static SnapshotBlock of(Reason reason, String message) {
    return new SnapshotBlock(reason, List.of(), message);
  }
}
