package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.SnapshotManifest;
import java.util.concurrent.CompletableFuture;

/** The outcome of asking for a snapshot. */
public sealed interface TriggerResult {

  /**
   * A snapshot started.
   *
   * @param manifest its pending manifest
   * @param outcome completes with the final manifest (COMPLETE, ABORTED or FAILED)
   */
  record Started(SnapshotManifest manifest, CompletableFuture<SnapshotManifest> outcome)
      implements TriggerResult {
    public long snapshotId() {
      return manifest.getSnapshotId();
    }
  }

  /**
   * No snapshot started, and why.
   *
   * @param block for {@link Reason#NOT_READY} and {@link Reason#STORE_ERROR}: the state of the
   *     cluster that keeps snapshots from starting; null for the causes that pass by themselves
   */
  record Refused(Reason reason, String message, SnapshotBlock block) implements TriggerResult {
    /** A refusal for a cause that passes by itself. */
    public Refused(Reason reason, String message) {
      this(reason, message, null);
    }

    /** A refusal for a state of the cluster. */
    public Refused(SnapshotBlock block) {
      this(
          block.reason() == SnapshotBlock.Reason.STORE_UNAVAILABLE
              ? Reason.STORE_ERROR
              : Reason.NOT_READY,
          block.message(),
          block);
    }
  }

  /** Why a snapshot could not start. */
  enum Reason {
    /** No workers, lost workers, pending channels, or a paused coordinator. */
    NOT_READY,
    /** The maximum number of concurrent snapshots is pending. */
    TOO_MANY_PENDING,
    /** The minimum pause since the last snapshot has not passed. */
    TOO_SOON,
    /** The store could not record the snapshot. */
    STORE_ERROR
  }
}
