package io.cutpoint.client.session;

import io.cutpoint.api.v1.PieceAnswer;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.client.WorkerControl;
import io.cutpoint.client.WorkerLoop;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.RecentIds;
import io.grpc.Status;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's snapshot listener: uploads each completed local snapshot from the worker's event
 * loop, one at a time (at most {@code capacity} wait for their turn; more are given up), and
 * reports local failures and failed uploads to the coordinator as {@code snapshot_failed}. Every
 * field but {@code closed} is the loop's; the uploads themselves never block it ({@link
 * SnapshotUploader}).
 *
 * <p>An upload starts only while the session is joined: one completed between a lost stream and the
 * next welcome (a peer's marker can arrive before the worker's own welcome) waits for that welcome,
 * so that it carries the secret of the session the coordinator knows.
 */
final class UploadQueue implements WorkerControl.LocalSnapshotListener {

  private static final Logger log = LoggerFactory.getLogger(UploadQueue.class);
  private static final int REMEMBERED_ABORTS = 256;

  /** What the queue needs from the session; called on the loop. */
  interface Reports {
    /** Sends {@code snapshot_failed} if the session is joined; false otherwise. */
    boolean snapshotFailed(long snapshotId, String reason);

    void uploaded(long snapshotId, long storedBytes);

    void uploadFailed(long snapshotId, String reason);
  }

  private record Waiting(CompletedLocalSnapshot snapshot, long recordedIn) {}

  private final String workerId;
  private final SnapshotUploader uploader;
  private final LongSupplier epoch;
  private final Reports reports;
  private final WorkerLoop loop;
  private final int capacity;
  private final RecentIds aborted = new RecentIds(REMEMBERED_ABORTS);
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private volatile SnapshotUploader.Upload current;
  private volatile boolean closed;
  private boolean joined; // between a welcome and the end of its stream

  UploadQueue(
      String workerId,
      SnapshotUploader uploader,
      LongSupplier epoch,
      Reports reports,
      WorkerLoop loop,
      int capacity) {
    this.workerId = workerId;
    this.uploader = uploader;
    this.epoch = epoch;
    this.reports = reports;
    this.loop = loop;
    this.capacity = capacity;
  }

  /** The coordinator aborted {@code snapshotId}: a queued upload of it is skipped. On the loop. */
  void aborted(long snapshotId) {
    aborted.remember(snapshotId);
  }

  /** The session was welcomed: the uploads that waited for it start. On the loop. */
  void joined() {
    joined = true;
    if (current == null) {
      startNext(waiting.poll());
    }
  }

  /**
   * The session's stream ended: uploads completed from now on wait for the next welcome, and a
   * piece sent on that stream fails unanswered. On the loop.
   */
  void left() {
    joined = false;
    SnapshotUploader.Upload u = current;
    if (u != null) {
      u.sessionEnded();
    }
  }

  /** The coordinator's answer to a piece sent on the session stream. On the loop. */
  void answered(PieceAnswer answer) {
    SnapshotUploader.Upload u = current;
    if (u == null || !u.answered(answer)) {
      log.debug(
          "worker {}: an answer to a piece of snapshot {} that is not in flight, ignored",
          workerId,
          answer.getSnapshotId());
    }
  }

  /** The upload running now, if any (for tests). */
  SnapshotUploader.Upload current() {
    return current;
  }

  /**
   * No upload starts from now on; the one running is cancelled, and the cuts and questions made
   * ahead of uploads are forgotten (on the loop; a stopped loop drops the task, and them). Any
   * thread.
   */
  void close() {
    closed = true;
    SnapshotUploader.Upload u = current;
    if (u != null) {
      u.cancel();
    }
    onLoop(uploader::forgetAll);
  }

  @Override
  public void captured(long snapshotId, CapturedState state) {
    onLoop(
        () -> {
          if (!closed) { // a closed session stays the listener until the next one replaces it
            uploader.captured(workerId, snapshotId, state, joined);
          }
        });
  }

  @Override
  public void dropped(long snapshotId) {
    onLoop(() -> uploader.forget(snapshotId));
  }

  @Override
  public void completed(CompletedLocalSnapshot snapshot) {
    long recordedIn = epoch.getAsLong();
    onLoop(() -> enqueue(new Waiting(snapshot, recordedIn)));
  }

  @Override
  public void failed(long snapshotId, String reason) {
    onLoop(
        () -> {
          uploader.forget(snapshotId);
          log.warn("worker {}: local snapshot {} failed: {}", workerId, snapshotId, reason);
          if (!reports.snapshotFailed(snapshotId, reason)) {
            log.info(
                "worker {}: not joined, the coordinator will time snapshot {} out",
                workerId,
                snapshotId);
          }
          reports.uploadFailed(snapshotId, reason);
        });
  }

  /** The worker reports on its loop (inline); a worker without one from its own threads. */
  private void onLoop(Runnable task) {
    if (loop.inLoop()) {
      task.run();
    } else {
      loop.execute(task);
    }
  }

  private void enqueue(Waiting w) {
    long id = w.snapshot().cut().snapshotId();
    if (closed) {
      log.info("worker {}: not uploading snapshot {}, the session is closed", workerId, id);
      uploader.forget(id); // cut ahead if it was captured before the close
      return;
    }
    if (current == null && joined) {
      startNext(w);
    } else if (waiting.size() < capacity) {
      waiting.add(w);
    } else {
      uploader.forget(id);
      String reason = "upload queue full (" + capacity + " waiting)";
      log.warn("worker {}: giving up snapshot {}: {}", workerId, id, reason);
      reports.snapshotFailed(id, reason);
      reports.uploadFailed(id, reason);
    }
  }

  /** Starts {@code next}, or the first waiting snapshot after it that was not aborted. */
  private void startNext(Waiting next) {
    for (Waiting w = next; w != null && !closed; w = waiting.poll()) {
      long id = w.snapshot().cut().snapshotId();
      if (aborted.contains(id)) {
        log.info("worker {}: snapshot {} was aborted, not uploading it", workerId, id);
        uploader.forget(id);
        reports.uploadFailed(id, "aborted by the coordinator");
        continue;
      }
      start(w);
      return;
    }
  }

  private void start(Waiting w) {
    long started = System.nanoTime();
    current =
        uploader.start(
            w.snapshot(), w.recordedIn(), (result, status) -> ended(w, started, result, status));
  }

  private void ended(Waiting w, long started, UploadResult result, Status status) {
    current = null;
    CompletedLocalSnapshot snapshot = w.snapshot();
    long id = snapshot.cut().snapshotId();
    if (result != null) {
      // one line per worker and snapshot: DEBUG; the coordinator logs each outcome once at INFO
      log.debug(
          "worker {}: uploaded snapshot {} ({} state bytes, {} in-flight messages) in {} ms",
          workerId,
          id,
          result.getStoredStateBytes(),
          snapshot.cut().inFlightMessages(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      reports.uploaded(id, result.getStoredStateBytes());
    } else {
      String reason = "upload failed: " + status.getCode() + ": " + status.getDescription();
      switch (status.getCode()) {
        case NOT_FOUND, FAILED_PRECONDITION -> {
          // The snapshot is no longer pending (aborted, timed out), as far as the call could tell.
          // Reported all the same: the coordinator ignores it for a snapshot that ended, and one
          // it still waits for then ends now, not at its timeout.
          log.info("worker {}: coordinator no longer takes snapshot {}: {}", workerId, id, status);
          reports.snapshotFailed(id, reason);
        }
        default -> {
          if (closed) {
            log.info("worker {}: upload of snapshot {} ended by the close", workerId, id);
          } else {
            log.warn("worker {}: {} of snapshot {}", workerId, reason, id);
            reports.snapshotFailed(id, reason);
          }
        }
      }
      reports.uploadFailed(id, reason);
    }
    if (joined) {
      startNext(waiting.poll());
    }
  }
}
