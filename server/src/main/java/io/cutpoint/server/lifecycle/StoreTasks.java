package io.cutpoint.server.lifecycle;

import io.cutpoint.storage.SnapshotStore;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Store reads and writes that the coordinator loop hands off besides the lifecycle's own ({@link
 * StoreEffects}): the rollback's target checks and epoch writes. Production performs them on the
 * {@code cutpoint-store} thread, in order with the lifecycle's writes ({@link StoreExecutor}); the
 * seeded simulator performs them in its event queue.
 */
public interface StoreTasks {

  /**
   * Runs {@code work} against the store; {@code done} gets on the loop its value, or the exception
   * it threw.
   */
  <T> void submit(Function<SnapshotStore, T> work, BiConsumer<T, RuntimeException> done);

  /**
   * Runs {@code work} against the store, after every write handed off before it; a failure is
   * logged.
   */
  void execute(String what, Consumer<SnapshotStore> work);
}
