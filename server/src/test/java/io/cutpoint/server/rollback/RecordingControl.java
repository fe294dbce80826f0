package io.cutpoint.server.rollback;

import io.cutpoint.client.ForwardingWorkerControl;
import io.cutpoint.client.Worker;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.server.testing.Teller;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The worker as its session sees it, recording every restore: which snapshot, which epoch, the
 * piece, and the application's state read on the event thread right after the restore (before the
 * session can answer {@code restored}, so before any resume); and the resumes it received.
 */
final class RecordingControl extends ForwardingWorkerControl {

  /** One restore as the worker carried it out. */
  record Restored(long snapshotId, long epoch, LocalSnapshot piece, byte[] stateAfter) {}

  private final Worker worker;
  private final Teller teller;
  final List<Restored> restores = new CopyOnWriteArrayList<>();

  /** The epochs of the resumes that reached the worker. */
  final List<Long> resumes = new CopyOnWriteArrayList<>();

  RecordingControl(Worker worker, Teller teller) {
    super(worker);
    this.worker = worker;
    this.teller = teller;
  }

  @Override
  public void resume(long epoch) {
    super.resume(epoch);
    resumes.add(epoch);
  }

  /** Whether the next restore fails, as a worker whose application cannot take the state. */
  volatile boolean failNextRestore;

  /**
   * When set, a restore stops before it applies the state, completes {@link #restoreReached}, and
   * goes on once this completes: the coordinator sees the worker restoring meanwhile.
   */
  volatile CompletableFuture<Void> holdRestore;

  final CompletableFuture<Void> restoreReached = new CompletableFuture<>();

  @Override
  public void restore(long epoch, LocalSnapshot piece, byte[] state) {
    CompletableFuture<Void> hold = holdRestore;
    if (hold != null) {
      restoreReached.complete(null);
      try {
        hold.get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("the held restore was not let go", e);
      }
    }
    if (failNextRestore) {
      failNextRestore = false;
      throw new IllegalStateException("the application refused the restored state");
    }
    worker.restore(epoch, piece, state);
    CompletableFuture<byte[]> after = new CompletableFuture<>();
    worker.execute(() -> after.complete(teller.capture()));
    try {
      restores.add(new Restored(piece.snapshotId(), epoch, piece, after.get(10, TimeUnit.SECONDS)));
    } catch (Exception e) {
      throw new IllegalStateException("could not read the state after the restore", e);
    }
  }
}
