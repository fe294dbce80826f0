package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Performs the coordinator's store writes and slow reads on one thread, {@code cutpoint-store}, so
 * that they keep the order the loop decided them in, and posts each result back to the loop as an
 * event. Nothing on this thread touches the loop's state: it reads and writes the store only.
 */
public final class StoreExecutor implements StoreEffects, StoreTasks, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StoreExecutor.class);

  /** The first failed piece write of each snapshot not yet committed or ended; this thread only. */
  private final Map<Long, String> failedWrites = new HashMap<>();

  private final SnapshotStore store;
  private final Scheduler loop;
  private final ExecutorScheduler thread = new ExecutorScheduler("cutpoint-store");

  /** Where stored pieces are synced ahead of their commit ({@link #syncPiecesSoon}). */
  private final ExecutorScheduler syncThread = new ExecutorScheduler("cutpoint-store-sync");

  private final java.util.concurrent.atomic.AtomicBoolean syncQueued =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** The store's epoch, read on {@code cutpoint-store} after work that may change it. */
  private volatile long epoch;

  /** At most this many ends wait for the store to write again; a restart ends the rest. */
  static final int MAX_UNFINISHED = 10_000;

  /**
   * Ends of snapshots that the store could not write (an I/O error such as a full disk), oldest
   * first: written before any later write, and when {@link #retryUnfinished()} says the store
   * writes again, so that no snapshot stays PENDING in the store after the loop ended it. Only the
   * {@code cutpoint-store} thread touches it.
   */
  private final Deque<SnapshotManifest> unfinished = new ArrayDeque<>();

  /**
   * @param loop where results are delivered (the coordinator loop)
   */
  public StoreExecutor(SnapshotStore store, Scheduler loop) {
    this.store = store;
    this.loop = loop;
    refreshEpoch();
  }

  @Override
  public void reserveIds(int count, BiConsumer<long[], StoreException> done) {
    thread.execute(
        () -> {
          long[] ids = new long[count];
          try {
            for (int i = 0; i < count; i++) {
              ids[i] = store.allocateSnapshotId(); // the store persists its high-water mark first
            }
          } catch (StoreException e) {
            log.error("could not reserve snapshot ids", e);
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

  /** On {@code cutpoint-store}, after work that may have changed it (a rollback's new epoch). */
  private void refreshEpoch() {
    try {
      epoch = store.epoch();
    } catch (StoreException e) {
      log.debug("could not read the epoch: {}", e.getMessage());
    }
  }

  @Override
  public void createPending(SnapshotManifest pending, Consumer<StoreException> done) {
    thread.execute(
        () -> {
          StoreException failure = null;
          try {
            store.createPending(pending);
          } catch (StoreException e) {
            log.error("could not record snapshot {}", pending.getSnapshotId(), e);
            failure = e;
          }
          StoreException f = failure;
          loop.execute(() -> done.accept(f));
        });
  }

  @Override
  public void commit(SnapshotManifest complete, Consumer<StoreException> done) {
    thread.execute(
        () -> {
          StoreException failure = null;
          String partFailed = failedWrites.remove(complete.getSnapshotId());
          try {
            store.commit(complete);
          } catch (StoreException e) {
            log.error("commit of snapshot {} failed", complete.getSnapshotId(), e);
            failure =
                partFailed == null
                    ? e
                    : new StoreException(partFailed + " (the store then refused the commit)", e);
          }
          StoreException f = failure;
          loop.execute(() -> done.accept(f));
        });
  }

  @Override
  public void finish(SnapshotManifest ended, Runnable done) {
    thread.execute(
        () -> {
          failedWrites.remove(ended.getSnapshotId());
          finishUnfinished();
          tryFinish(ended);
          loop.execute(done);
        });
  }

  /**
   * Performs one write of an upload's piece on this thread: behind every write handed off before it
   * (the snapshot's pending manifest, which the loop hands off before any worker hears of the
   * snapshot) and ahead of every one handed off after it (the snapshot's commit, which the loop
   * decides only once the upload has told it of the piece). {@code write} deals with its own
   * failures; any thread.
   */
  public void writePiece(Consumer<SnapshotStore> write) {
    thread.execute(() -> write.accept(store));
  }

  /**
   * Makes the piece writes performed so far durable soon ({@link SnapshotStore#syncPieces}), on
   * {@code cutpoint-store-sync}, so that the commit's own sync has less left to write: the bytes of
   * the pieces that arrived early are on disk before the last one does. A request made while a sync
   * is queued and not yet started joins it; one made while a sync runs queues the next. The
   * commit's synced write is what makes a snapshot durable, with or without this. Any thread.
   */
  public void syncPiecesSoon() {
    if (syncQueued.compareAndSet(false, true)) {
      syncThread.execute(
          () -> {
            syncQueued.set(false);
            try {
              store.syncPieces();
            } catch (RuntimeException e) {
              log.debug("syncing the stored pieces ahead of their commit failed: {}", e.toString());
            }
          });
    }
  }

  /**
   * On {@code cutpoint-store}, from a {@link #writePiece} write that failed: its piece never gets
   * its metadata, so the store refuses the snapshot's commit, and the commit's failure then names
   * this first cause (the store's own error, e.g. the object store out of reach) instead of only
   * the missing metadata.
   */
  public void pieceWriteFailed(long snapshotId, String message) {
    failedWrites.putIfAbsent(snapshotId, message);
  }

  /**
   * How many part-write failures are kept for snapshots that have not committed or ended yet; read
   * it on {@code cutpoint-store} (a task of {@link #writePiece}). For tests and diagnostics.
   */
  public int failedWritesKept() {
    return failedWrites.size();
  }

  /**
   * Writes the ends that failed while the store could not write. Called (from any thread) once the
   * store writes again; runs on {@code cutpoint-store}.
   */
  public void retryUnfinished() {
    thread.execute(this::finishUnfinished);
  }

  private void finishUnfinished() {
    for (int n = unfinished.size(); n > 0; n--) {
      tryFinish(unfinished.poll());
    }
  }

  private void tryFinish(SnapshotManifest ended) {
    try {
      store.finish(ended);
    } catch (StoreException e) {
      if (store.unavailable().isEmpty()) {
        log.error("could not record the end of snapshot {}", ended.getSnapshotId(), e);
        return;
      }
      if (unfinished.size() == MAX_UNFINISHED) {
        log.error(
            "snapshot {} stays PENDING in the store until a restart ends it: {} ends already wait",
            unfinished.poll().getSnapshotId(),
            MAX_UNFINISHED);
      }
      unfinished.add(ended);
      log.warn(
          "could not record the end of snapshot {} ({}); written once the store writes again",
          ended.getSnapshotId(),
          e.getMessage());
    }
  }

  /**
   * Runs {@code work} against the store on this thread; {@code done} gets on the loop its value, or
   * the exception it threw.
   */
  @Override
  public <T> void submit(Function<SnapshotStore, T> work, BiConsumer<T, RuntimeException> done) {
    thread.execute(
        () -> {
          T value;
          try {
            value = work.apply(store);
          } catch (RuntimeException e) {
            refreshEpoch();
            loop.execute(() -> done.accept(null, e));
            return;
          }
          refreshEpoch();
          loop.execute(() -> done.accept(value, null));
        });
  }

  /** Runs {@code work} on this thread, after every write posted before it; a failure is logged. */
  @Override
  public void execute(String what, Consumer<SnapshotStore> work) {
    thread.execute(
        () -> {
          try {
            work.accept(store);
          } catch (RuntimeException e) {
            if (interrupted(e)) {
              log.debug("{} stopped: the store thread is closing", what);
            } else {
              log.error("{} failed", what, e);
            }
          }
          refreshEpoch();
        });
  }

  /** Whether {@code e} comes of the interrupt that {@link #close} sends a running task. */
  private static boolean interrupted(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof InterruptedException) {
        return true;
      }
    }
    return false;
  }

  /** Stops; writes still queued are dropped (a restart ends their snapshots as ABORTED). */
  @Override
  public void close() {
    thread.close();
    syncThread.close();
  }
}
