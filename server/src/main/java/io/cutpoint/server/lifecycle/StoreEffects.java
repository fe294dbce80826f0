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
 *
 * <p>Effects are performed in the order they are decided: a write decided after {@link
 * #createPending} (a commit, an end, a piece stored behind it) comes after the pending manifest.
 */
public interface StoreEffects {

  /**
   * Reserves {@code count} fresh snapshot ids ahead of their use; {@code done} gets on the loop the
   * ids, increasing, or the store's failure. An id is durably reserved before it is delivered, so
   * that no id is ever handed out twice, also across restarts (ids reserved and never used are
   * skipped).
   */
  void reserveIds(int count, BiConsumer<long[], StoreException> done);

  /**
   * The store's epoch as of its last write; any thread, never waits for the store. A rollback
   * persists its new epoch before it tells the loop, so an event after that sees it.
   */
  long epoch();

  /**
   * Writes the pending manifest of a snapshot that has already started (its id reserved by {@link
   * #reserveIds}); {@code done} gets on the loop null, or the store's failure.
   */
  void createPending(SnapshotManifest pending, Consumer<StoreException> done);

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
