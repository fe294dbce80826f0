package io.cutpoint.server;

import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.server.rollback.RollbackStatus;
import io.grpc.Status;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The seam where rollback plugs into the coordinator. The admin service delegates
 * {@code Admin.Rollback} to {@link #rollback}; the session streams pass the workers' rollback
 * messages ({@code halted}, {@code restored}) and membership changes to it. Everything it needs
 * (store, sessions, membership, lifecycle, events, metrics, clock, scheduler) is on the {@link
 * CoordinatorContext} its {@link Factory} receives. Until an implementation is plugged in,
 * {@link #unimplemented()} answers UNIMPLEMENTED.
 */
public interface RollbackService extends AutoCloseable {

  /**
   * Rolls back as {@code request} asks. Completes with the response, or exceptionally with a
   * {@link io.grpc.StatusRuntimeException} carrying the status to answer.
   */
  CompletableFuture<RollbackResponse> rollback(RollbackRequest request);

  /** True while a rollback is prepared or runs (not once it failed). */
  default boolean inProgress() {
    return false;
  }

  /**
   * True while the workers are held halted: a rollback is prepared, runs, or failed and was
   * neither retried nor cancelled. A joining worker is welcomed halted meanwhile.
   */
  default boolean holdsWorkers() {
    return inProgress();
  }

  /** Where the rollback is, for operators. */
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

  /** True when a rollback is restoring {@code snapshotId}: it must not be deleted. */
  default boolean uses(long snapshotId) {
    return false;
  }

  /** A worker acknowledged {@code halt}. */
  default void onHalted(String workerId, long epoch) {}

  /** A worker acknowledged {@code restore}. */
  default void onRestored(String workerId, long epoch, long snapshotId) {}

  /** A worker joined (or rejoined). */
  default void onWorkerJoined(String workerId) {}

  /**
   * A worker joined with {@code Join.fresh}: its state is the application's initial one, not
   * what it ran before (it died and restarted, maybe while no coordinator watched). Called after
   * {@link #onWorkerJoined}.
   */
  default void onFreshWorkerJoined(String workerId) {}

  /** A worker lost its session. */
  default void onWorkerLost(String workerId) {}

  /** Called once when the coordinator starts, after the store is open (resume a persisted one). */
  default void start() {}

  @Override
  default void close() {}

  /** Creates the rollback service of a coordinator. */
  @FunctionalInterface
  interface Factory {
    RollbackService create(CoordinatorContext context);
  }

  /** A rollback service that refuses every rollback with UNIMPLEMENTED. */
  static RollbackService unimplemented() {
    return request -> CompletableFuture.failedFuture(Status.UNIMPLEMENTED
        .withDescription("rollback is not available in this coordinator build yet")
        .asRuntimeException());
  }
}
