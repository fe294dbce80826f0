package io.cutpoint.server.sim;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.server.lifecycle.StoreEffects;
import io.cutpoint.server.lifecycle.StoreTasks;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The store executor of one simulated coordinator: performs the lifecycle's {@link StoreEffects}
 * and the rollback's {@link StoreTasks} against the store after seeded delays, in the order they
 * were handed off (as the one {@code cutpoint-store} thread does), and posts each result to the
 * loop. Writes still queued when the coordinator restarts are dropped, as a killed process drops
 * them. This is the one class to follow the lifecycle's store effects when they change.
 */
final class SimStore implements StoreEffects, StoreTasks {

  private final SnapshotStore store;
  private final SimLoop loop;
  private final LongSupplier delay;
  private final int generation;
  private long last;
  private long epoch;

  /**
   * @param delay the time one store operation takes, in ticks (at least 1)
   */
  SimStore(SnapshotStore store, SimLoop loop, LongSupplier delay) {
    this.store = store;
    this.loop = loop;
    this.delay = delay;
    this.generation = loop.generation();
    this.epoch = store.epoch();
  }

  @Override
  public void reserveIds(int count, BiConsumer<long[], StoreException> done) {
    perform(
        () -> {
          long[] ids = new long[count];
          try {
            for (int i = 0; i < count; i++) {
              ids[i] = store.allocateSnapshotId();
            }
          } catch (StoreException e) {
            loop.execute(() -> done.accept(null, e));
            return;
          }
          loop.execute(() -> done.accept(ids, null));
        });
  }

  @Override
  public long epoch() {
    return epoch;
  }

  @Override
  public void createPending(SnapshotManifest pending, Consumer<StoreException> done) {
    perform(
        () -> {
          StoreException failure = null;
          try {
            store.createPending(pending);
          } catch (StoreException e) {
            failure = e;
          }
          StoreException f = failure;
          loop.execute(() -> done.accept(f));
        });
  }

  @Override
  public void commit(SnapshotManifest complete, Consumer<StoreException> done) {
    perform(
        () -> {
          StoreException failure = null;
          try {
            store.commit(complete);
          } catch (StoreException e) {
            failure = e;
          }
          StoreException f = failure;
          loop.execute(() -> done.accept(f));
        });
  }

  @Override
  public void finish(SnapshotManifest ended, Runnable done) {
    perform(
        () -> {
          store.finish(ended);
          loop.execute(done);
        });
  }

  @Override
  public <T> void submit(Function<SnapshotStore, T> work, BiConsumer<T, RuntimeException> done) {
    perform(
        () -> {
          T value;
          try {
            value = work.apply(store);
            epoch = store.epoch();
          } catch (RuntimeException e) {
            epoch = store.epoch();
            loop.execute(() -> done.accept(null, e));
            return;
          }
          loop.execute(() -> done.accept(value, null));
        });
  }

  @Override
  public void execute(String what, Consumer<SnapshotStore> work) {
    perform(
        () -> {
          work.accept(store);
          epoch = store.epoch();
        });
  }

  /**
   * Performs an upload's part writes in order with the other operations, taking no time of their
   * own: the store writes parts as they arrive, and an upload's time is in its acknowledgement.
   */
  void writePiece(Consumer<SnapshotStore> write) {
    last = Math.max(last, loop.now());
    loop.at(last, generation, () -> write.accept(store));
  }

  private void perform(Runnable operation) {
    last = Math.max(last, loop.now()) + delay.getAsLong();
    loop.at(last, generation, operation);
  }
}
