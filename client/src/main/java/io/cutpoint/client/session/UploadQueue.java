package io.cutpoint.client.session;

import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.client.WorkerControl;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.RecentIds;
import io.grpc.Status;
import io.grpc.StatusException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's snapshot listener: hands each completed local snapshot to one upload thread (uploads
 * are sequential; at most {@code capacity} wait), and reports local failures and failed uploads to
 * the coordinator as {@code snapshot_failed}. Never blocks the worker's event thread.
 */
final class UploadQueue implements WorkerControl.LocalSnapshotListener {

  private static final Logger log = LoggerFactory.getLogger(UploadQueue.class);
  private static final int REMEMBERED_ABORTS = 256;

  /** What the queue needs from the session. */
  interface Reports {
    /** Sends {@code snapshot_failed} if the session is joined; false otherwise. */
    boolean snapshotFailed(long snapshotId, String reason);

    void uploaded(long snapshotId, long storedBytes);

    void uploadFailed(long snapshotId, String reason);
  }

  private final String workerId;
  private final SnapshotUploader uploader;
  private final LongSupplier epoch;
  private final Reports reports;
  private final ThreadPoolExecutor executor;
  private final int capacity;

  /** Guarded by itself: the session thread adds, the upload thread reads. */
  private final RecentIds aborted = new RecentIds(REMEMBERED_ABORTS);

  UploadQueue(
      String workerId,
      SnapshotUploader uploader,
      LongSupplier epoch,
      Reports reports,
      int capacity,
      ThreadFactory threads) {
    this.workerId = workerId;
    this.uploader = uploader;
    this.epoch = epoch;
    this.reports = reports;
    this.capacity = capacity;
    this.executor =
        new ThreadPoolExecutor(
            1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(capacity), threads);
  }

  ThreadPoolExecutor executor() {
    return executor;
  }

  /** The coordinator aborted {@code snapshotId}: a queued upload of it is skipped. */
  void aborted(long snapshotId) {
    synchronized (aborted) {
      aborted.remember(snapshotId);
    }
  }

  @Override
  public void completed(CompletedLocalSnapshot snapshot) {
    long id = snapshot.cut().snapshotId();
    long recordedIn = epoch.getAsLong();
    try {
      executor.execute(() -> upload(snapshot, recordedIn));
    } catch (RejectedExecutionException e) {
      if (executor.isShutdown()) {
        log.info("worker {}: not uploading snapshot {}, the session is closed", workerId, id);
        return;
      }
      String reason = "upload queue full (" + capacity + " waiting)";
      log.warn("worker {}: giving up snapshot {}: {}", workerId, id, reason);
      reports.snapshotFailed(id, reason);
      reports.uploadFailed(id, reason);
    }
  }

  @Override
  public void failed(long snapshotId, String reason) {
    log.warn("worker {}: local snapshot {} failed: {}", workerId, snapshotId, reason);
    if (!reports.snapshotFailed(snapshotId, reason)) {
      log.info(
          "worker {}: not joined, the coordinator will time snapshot {} out", workerId, snapshotId);
    }
    reports.uploadFailed(snapshotId, reason);
  }

  private void upload(CompletedLocalSnapshot snapshot, long recordedIn) {
    long id = snapshot.cut().snapshotId();
    boolean wasAborted;
    synchronized (aborted) {
      wasAborted = aborted.contains(id);
    }
    if (wasAborted) {
      log.info("worker {}: snapshot {} was aborted, not uploading it", workerId, id);
      reports.uploadFailed(id, "aborted by the coordinator");
      return;
    }
    long started = System.nanoTime();
    try {
      UploadResult result = uploader.upload(snapshot, recordedIn);
      log.info(
          "worker {}: uploaded snapshot {} ({} state bytes, {} in-flight messages) in {} ms",
          workerId,
          id,
          result.getStoredStateBytes(),
          snapshot.cut().inFlightMessages(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      reports.uploaded(id, result.getStoredStateBytes());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.info("worker {}: upload of snapshot {} interrupted", workerId, id);
      reports.uploadFailed(id, "interrupted");
    } catch (StatusException e) {
      Status status = e.getStatus();
      String reason = "upload failed: " + status.getCode() + ": " + status.getDescription();
      switch (status.getCode()) {
        case NOT_FOUND, FAILED_PRECONDITION ->
            // The snapshot is no longer pending (aborted, timed out): nothing to report.
            log.info(
                "worker {}: coordinator no longer takes snapshot {}: {}", workerId, id, status);
        default -> {
          log.warn("worker {}: {} of snapshot {}", workerId, reason, id);
          reports.snapshotFailed(id, reason);
        }
      }
      reports.uploadFailed(id, reason);
    }
  }
}
