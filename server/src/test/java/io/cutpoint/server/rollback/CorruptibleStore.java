package io.cutpoint.server.rollback;

import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.HeldState;
import io.cutpoint.storage.SnapshotStore;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real store whose chosen snapshots read as damaged: every read of their state, and every
 * integrity check of them, fails its checksum, as {@code RocksSnapshotStore} does when a stored
 * value's CRC does not match. It also records every integrity check asked for, can hold one search
 * on the store's thread, and can run a step just before a rollback's epoch is persisted. Every
 * other call is the real store's.
 */
final class CorruptibleStore {

  /** One integrity check: the snapshot and the states its caller said their workers hold. */
  record Verified(long snapshotId, Map<String, HeldState> held) {}

  /** A call held on the store's thread: counted down when it is reached, it goes on at open. */
  record Gate(CountDownLatch reached, CountDownLatch open) {}

  private final Set<Long> corrupt = ConcurrentHashMap.newKeySet();
  private volatile Gate freshSearch;
  private volatile Runnable beforeBegin;
  private final List<Verified> verified = new CopyOnWriteArrayList<>();
  private final SnapshotStore store;

  CorruptibleStore(SnapshotStore real) {
    store = InterceptedStore.around(real, this::before);
  }

  /** The snapshots that read as damaged, to carry over to the store of a restarted coordinator. */
  Set<Long> corrupted() {
    return Set.copyOf(corrupt);
  }

  /** The store to hand to the coordinator. */
  SnapshotStore asStore() {
    return store;
  }

  /** From now on every state read of {@code snapshotId} fails its checksum. */
  void corrupt(long snapshotId) {
    corrupt.add(snapshotId);
  }

  /**
   * The next search for the snapshot that holds a fresh worker's state ({@code
   * RollbackTargets.newestHolding}) waits on the store's thread until the gate opens (at most 30
   * s): what comes to the store executor meanwhile queues behind it.
   */
  Gate holdNextFreshSearch() {
    Gate g = new Gate(new CountDownLatch(1), new CountDownLatch(1));
    freshSearch = g;
    return g;
  }

  /** Runs once on the store's thread just before the next {@code beginRollback}. */
  void beforeNextBeginRollback(Runnable step) {
    beforeBegin = step;
  }

  /** Every integrity check asked for, oldest first. */
  List<Verified> verified() {
    return List.copyOf(verified);
  }

  @SuppressWarnings("unchecked")
  private void before(String method, Object[] args) {
    Runnable begin = beforeBegin;
    if (begin != null && method.equals("beginRollback")) {
      beforeBegin = null;
      begin.run();
    }
    Gate g = freshSearch;
    if (g != null
        && method.equals("list")
        && StackWalker.getInstance()
            .walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("newestHolding")))) {
      freshSearch = null;
      g.reached().countDown();
      try {
        g.open().await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (method.equals("readState")) {
      check((Long) args[0], "worker " + args[1] + ", state chunk 0");
    } else if (method.equals("verifyIntegrity")) {
      long id = (Long) args[0];
      verified.add(
          new Verified(
              id, args.length > 1 ? Map.copyOf((Map<String, HeldState>) args[1]) : Map.of()));
      check(id, "state chunk 0");
    }
  }

  private void check(long snapshotId, String what) {
    if (corrupt.contains(snapshotId)) {
      throw new CorruptionException("snapshot " + snapshotId + ", " + what + ": CRC32C mismatch");
    }
  }
}
