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

  /** Queue the effects instead of performing them. */
  public boolean hold;

  public DirectStoreEffects(SnapshotStore store) {
    this.store = store;
  }

  /**
   * The effects decided so far, in order: {@code pending}, {@code commit <id>}, {@code finish
   * <id>}.
   */
  public List<String> decided() {
    return List.copyOf(decided);
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
  public void createPending(
      PendingManifest manifest, BiConsumer<SnapshotManifest, StoreException> done) {
    decided.add("pending");
    run(
        () -> {
          SnapshotManifest m;
          try {
            m = manifest.build(store.allocateSnapshotId(), store.epoch());
            store.createPending(m);
          } catch (StoreException e) {
            done.accept(null, e);
            return;
          }
          done.accept(m, null);
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
