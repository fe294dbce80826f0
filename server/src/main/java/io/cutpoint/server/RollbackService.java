package io.cutpoint.server;

import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.grpc.Status;
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

  /** True while a rollback runs (shown in the cluster view; new workers join halted). */
  default boolean inProgress() {
    return false;
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
