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

  @Override
  public void restore(long epoch, LocalSnapshot piece, byte[] state) {
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
