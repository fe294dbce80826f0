package io.cutpoint.server;

import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.server.events.EventHub;
import io.cutpoint.server.grpc.SessionRegistry;
import io.cutpoint.server.lifecycle.Scheduler;
import io.cutpoint.server.lifecycle.SnapshotLifecycle;
import io.cutpoint.server.lifecycle.StoreTasks;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.metrics.CoordinatorMetrics;
import io.cutpoint.server.rollback.RollbackRefused;
import io.cutpoint.server.rollback.RollbackStatus;
import io.cutpoint.storage.SnapshotStore;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The seam where rollback plugs into the coordinator. The admin service delegates {@code
 * Admin.Rollback} to {@link #rollback}; the session streams pass the workers' rollback messages
 * ({@code halted}, {@code restored}) and membership changes to it. Every method runs on the
 * coordinator loop, except the readers {@link #inProgress}, {@link #holdsWorkers}, {@link #status}
 * and {@link #uses}, which read what the last event published and run on any thread, and {@link
 * #close}. Until an implementation is plugged in, {@link #unimplemented()} refuses.
 */
public interface RollbackService extends AutoCloseable {

  /**
   * Rolls back as {@code request} asks. Completes with the response, or exceptionally with a {@link
   * RollbackRefused} saying why not.
   */
  CompletableFuture<RollbackResponse> rollback(RollbackRequest request);

  /** True while a rollback is prepared or runs (not once it failed). Any thread. */
  default boolean inProgress() {
    return false;
  }

  /**
   * True while the workers are held halted: a rollback runs, or failed and was neither retried nor
   * cancelled, or is being prepared while they were already held. A joining worker is welcomed
   * halted meanwhile. Any thread.
   */
  default boolean holdsWorkers() {
    return inProgress();
  }

  /**
   * The cluster's epoch as the rollback last set it, or -1 when this service does not keep it (the
   * store's is current then). Any thread.
   */
  default long epoch() {
    return -1;
  }

  /** Where the rollback is, for operators. Any thread. */
  default RollbackStatus status() {
    return RollbackStatus.NONE;
  }

  /**
   * Gives up the running or failed rollback: every live worker is sent {@code resume} in the
   * rollback's epoch with the state it holds, and snapshots start again.
   */
  default RollbackStatus.Cancel cancel() {
    return new RollbackStatus.NotCancelled(RollbackStatus.Phase.NONE, "no rollback runs or failed");
  }

  /** Why a rollback needs {@code workerId} (so that it may not be removed), or empty. */
  default Optional<String> needs(String workerId) {
    return Optional.empty();
  }

  /** True when a rollback is restoring {@code snapshotId}: it must not be deleted. Any thread. */
  default boolean uses(long snapshotId) {
    return false;
  }

  /** A worker acknowledged {@code halt}. */
  default void onHalted(String workerId, long epoch) {}

  /**
   * A worker acknowledged {@code restore}; {@code fromLocalCopy}: it restored its state from its
   * own disk rather than a download.
   */
  default void onRestored(String workerId, long epoch, long snapshotId, boolean fromLocalCopy) {}

  /**
   * A worker could not restore {@code snapshotId}, the target of the {@code restore} of {@code
   * epoch}.
   */
  default void onRestoreFailed(String workerId, long epoch, long snapshotId, String reason) {}

  /** A worker joined (or rejoined). */
  default void onWorkerJoined(String workerId) {}

  /**
   * A worker joined with {@code Join.fresh}: its state is the application's initial one, not what
   * it ran before (it died and restarted, maybe while no coordinator watched). Called after {@link
   * #onWorkerJoined}.
   */
  default void onFreshWorkerJoined(String workerId) {}

  /** A worker lost its session. */
  default void onWorkerLost(String workerId) {}

  /** Called once on the loop when the coordinator has started (resume a persisted rollback). */
  default void start() {}

  /** Any thread. */
  @Override
  default void close() {}

  /**
   * The coordinator's parts a rollback works with.
   *
   * @param loop the coordinator loop, which every event of the rollback runs on
   * @param storeIo the store executor ({@code StoreExecutor}): the rollback's store reads and
   *     writes run there, in order with the lifecycle's
   * @param store the store, for what the rollback reads when the coordinator starts
   */
  record Parts(
      CoordinatorConfig config,
      Clock clock,
      Scheduler loop,
      StoreTasks storeIo,
      SnapshotStore store,
      Membership membership,
      SessionRegistry sessions,
      SnapshotLifecycle lifecycle,
      EventHub events,
      CoordinatorMetrics metrics) {}

  /** Creates the rollback service of a coordinator. */
  @FunctionalInterface
  interface Factory {
    RollbackService create(Parts parts);
  }

  /** A rollback service that refuses every rollback. */
  static RollbackService unimplemented() {
    return request ->
        CompletableFuture.failedFuture(
            new RollbackRefused(
                RollbackRefused.Kind.NOT_SUPPORTED,
                "rollback is not available in this coordinator build yet"));
  }
}
