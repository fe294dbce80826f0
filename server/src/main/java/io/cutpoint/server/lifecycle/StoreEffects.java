package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.storage.StoreException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The store writes the snapshot lifecycle decides on, performed elsewhere: production hands them to
 * {@link StoreExecutor} (one {@code cutpoint-store} thread, so they keep their order), tests queue
 * them and perform them when they choose. Every result is delivered back on the coordinator loop,
 * as an event of the lifecycle.
 */
public interface StoreEffects {

  /** Builds the pending manifest of a new snapshot from its id and the store's epoch. */
  @FunctionalInterface
  interface PendingManifest {
    SnapshotManifest build(long snapshotId, long epoch);
  }

  /**
   * Allocates a snapshot id, reads the epoch, and writes the pending manifest {@code manifest}
   * builds; {@code done} gets on the loop the manifest written, or the store's failure.
   */
  void createPending(PendingManifest manifest, BiConsumer<SnapshotManifest, StoreException> done);

  /**
   * Commits {@code complete} in one synced write; {@code done} gets on the loop null, or the
   * store's failure.
   */
  void commit(SnapshotManifest complete, Consumer<StoreException> done);

  /**
   * Records the end of an aborted or failed snapshot; {@code done} runs on the loop once it is
   * written (or failed: a failure is only logged).
   */
  void finish(SnapshotManifest ended, Runnable done);
}
