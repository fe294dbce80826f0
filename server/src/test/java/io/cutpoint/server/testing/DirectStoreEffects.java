package io.cutpoint.server.testing;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.server.lifecycle.StoreEffects;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The lifecycle's store effects on the test's thread: performed at once against a store, or, while
 * {@link #hold} is set, queued until the test {@linkplain #perform() performs} them, so that a test
 * sees what the lifecycle decided before the store's answer comes back.
 */
public final class DirectStoreEffects implements StoreEffects {

  private final SnapshotStore store;
  private final Deque<Runnable> queued = new ArrayDeque<>();
  private final List<String> decided = new ArrayList<>();
  private final List<Long> reserved = new ArrayList<>();

  /** Queue the effects instead of performing them. */
  public boolean hold;

  public DirectStoreEffects(SnapshotStore store) {
    this.store = store;
  }

  /**
   * The effects decided so far, in order: {@code ids <count>}, {@code pending <id>}, {@code commit
   * <id>}, {@code finish <id>}.
   */
  public List<String> decided() {
    return List.copyOf(decided);
  }

  /** The ids the store reserved so far, in order. */
  public List<Long> reserved() {
    return List.copyOf(reserved);
  }

  /** Effects queued and not performed. */
  public int queued() {
    return queued.size();
  }

  /** Performs the queued effects in order, delivering their results. */
  public void perform() {
    while (!queued.isEmpty()) {
      queued.removeFirst().run();
    }
  }

  @Override
  public void reserveIds(int count, BiConsumer<long[], StoreException> done) {
    decided.add("ids " + count);
    run(
        () -> {
          long[] ids = new long[count];
          try {
            for (int i = 0; i < count; i++) {
              ids[i] = store.allocateSnapshotId();
            }
          } catch (StoreException e) {
            done.accept(null, e);
            return;
          }
          for (long id : ids) {
            reserved.add(id);
          }
          done.accept(ids, null);
        });
  }

  @Override
  public long epoch() {
    return store.epoch();
  }

  @Override
  public void createPending(SnapshotManifest pending, Consumer<StoreException> done) {
    decided.add("pending " + pending.getSnapshotId());
    run(
        () -> {
          try {
            store.createPending(pending);
          } catch (StoreException e) {
            done.accept(e);
            return;
          }
          done.accept(null);
        });
  }

  @Override
  public void commit(SnapshotManifest complete, Consumer<StoreException> done) {
    decided.add("commit " + complete.getSnapshotId());
    run(
        () -> {
          try {
            store.commit(complete);
          } catch (StoreException e) {
            done.accept(e);
            return;
          }
          done.accept(null);
        });
  }

  @Override
  public void finish(SnapshotManifest ended, Runnable done) {
    decided.add("finish " + ended.getSnapshotId());
    run(
        () -> {
          store.finish(ended);
          done.run();
        });
  }

  private void run(Runnable effect) {
    if (hold) {
      queued.addLast(effect);
    } else {
      effect.run();
    }
  }
}
