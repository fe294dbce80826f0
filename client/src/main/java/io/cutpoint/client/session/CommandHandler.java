package io.cutpoint.client.session;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.Halted;
import io.cutpoint.api.v1.LocalSnapshotFailed;
import io.cutpoint.api.v1.PeerAddress;
import io.cutpoint.api.v1.RestoreFailed;
import io.cutpoint.api.v1.Restored;
import io.cutpoint.api.v1.SnapshotGranted;
import io.cutpoint.api.v1.Welcome;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.client.WorkerControl;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the coordinator's messages into {@link WorkerControl} calls and answers on the session
 * stream. Runs on the worker's event loop only, one message at a time; the protocol is described on
 * {@link CoordinatorSession}.
 */
final class CommandHandler {

  private static final Logger log = LoggerFactory.getLogger(CommandHandler.class);

  /** A restore is tried this many times before it is given up. */
  static final int RESTORE_ATTEMPTS = 2;

  /** What the handler needs from the session. */
  interface Hooks {
    void state(SessionState state);

    /** The pending {@code requestSnapshot()} future of {@code requestId}, removed; or null. */
    CompletableFuture<Long> takeGrant(long requestId);

    void restoreFailed(long snapshotId, String reason);

    /** A restore ended (restored or given up): the commands held back meanwhile may run. */
    void restoreEnded();
  }

  private final WorkerControl worker;
  private final String workerId;
  private final SnapshotDownloader downloader;
  private final UploadQueue uploads;
  private final Hooks hooks;
  private boolean workerHalted;
  private boolean restoring;

  /** The coordinator of the last welcome takes {@code restore_failed}. */
  private boolean takesRestoreFailed;

  private volatile boolean cancelled;

  CommandHandler(
      WorkerControl worker, SnapshotDownloader downloader, UploadQueue uploads, Hooks hooks) {
    this.worker = worker;
    this.workerId = worker.workerId();
    this.downloader = downloader;
    this.uploads = uploads;
    this.hooks = hooks;
  }

  /**
   * Applies a welcome; true when the worker is now halted for a rollback. A worker that fails to
   * carry it out is logged; the session stays joined (the coordinator decides what happens next).
   */
  boolean welcome(SessionAttempt s, Welcome welcome) {
    takesRestoreFailed = welcome.getTakesRestoreFailed();
    try {
      updatePeers(welcome.getPeersList());
      return applyEpoch(s, welcome);
    } catch (RuntimeException e) {
      log.error("worker {}: the worker failed to apply the welcome", workerId, e);
      return welcome.getHalted();
    }
  }

  private boolean applyEpoch(SessionAttempt s, Welcome welcome) {
    if (welcome.getNextSnapshotId() != 0) {
      worker.endUnknownSnapshots(
          welcome.getNextSnapshotId(), java.util.Set.copyOf(welcome.getPendingSnapshotIdsList()));
    }
    long epoch = welcome.getEpoch();
    if (welcome.getHalted()) {
      halt(s, epoch);
      return true;
    }
    long current = worker.epoch();
    if (current != epoch) {
      if (epoch < current) {
        log.warn(
            "worker {}: the coordinator's epoch {} is older than the worker's {} (was its "
                + "store reset?); following the coordinator",
            workerId,
            epoch,
            current);
      } else {
        log.info(
            "worker {}: moving from epoch {} to the cluster's epoch {}", workerId, current, epoch);
      }
      worker.halt(epoch);
      worker.resume(epoch);
    } else if (workerHalted) {
      log.info(
          "worker {}: no rollback in progress any more, resuming in epoch {}", workerId, epoch);
      worker.resume(epoch);
    }
    workerHalted = false;
    return false;
  }

  /** Handles any message after the welcome. */
  void handle(SessionAttempt s, CoordinatorMessage m) {
    try {
      switch (m.getBodyCase()) {
        case PEERS -> updatePeers(m.getPeers().getPeersList());
        case START_SNAPSHOT ->
            startSnapshot(s, m.getStartSnapshot().getSnapshotId(), m.getStartSnapshot().getEpoch());
        case ABORT_SNAPSHOT -> {
          long id = m.getAbortSnapshot().getSnapshotId();
          log.info(
              "worker {}: snapshot {} aborted: {}", workerId, id, m.getAbortSnapshot().getReason());
          uploads.aborted(id);
          worker.abortSnapshot(id);
        }
        case HALT -> {
          halt(s, m.getHalt().getEpoch());
          hooks.state(SessionState.HALTED);
        }
        case RESTORE -> restore(s, m.getRestore().getSnapshotId(), m.getRestore().getEpoch());
        case RESUME -> {
          long epoch = m.getResume().getEpoch();
          worker.resume(epoch);
          workerHalted = false;
          log.info("worker {}: resumed in epoch {}", workerId, epoch);
          hooks.state(SessionState.JOINED);
        }
        case SNAPSHOT_GRANTED -> granted(m.getSnapshotGranted());
        case PIECE_ANSWER -> uploads.answered(m.getPieceAnswer());
        case WELCOME -> log.warn("worker {}: a second welcome, ignored", workerId);
        case BODY_NOT_SET ->
            log.warn("worker {}: an empty or unknown coordinator message, " + "ignored", workerId);
      }
    } catch (RuntimeException e) {
      log.error("worker {}: the worker failed to carry out {}", workerId, m.getBodyCase(), e);
    }
  }

  /** Ends a download in progress (on close). */
  void cancelDownload() {
    cancelled = true;
    downloader.cancel();
  }

  private void updatePeers(List<PeerAddress> peers) {
    if (peers.isEmpty()) {
      return;
    }
    Map<String, String> byId = new LinkedHashMap<>();
    for (PeerAddress p : peers) {
      byId.put(p.getWorkerId(), p.getChannelAddress());
    }
    worker.updatePeers(byId);
  }

  private void startSnapshot(SessionAttempt s, long id, long epoch) {
    long current = worker.epoch();
    if (epoch != current) {
      String reason = "start for epoch " + epoch + " but the worker is in epoch " + current;
      log.warn("worker {}: not starting snapshot {}: {}", workerId, id, reason);
      s.send(
          WorkerMessage.newBuilder()
              .setSnapshotFailed(
                  LocalSnapshotFailed.newBuilder().setSnapshotId(id).setReason(reason))
              .build());
      return;
    }
    worker.startSnapshot(id);
  }

  private void halt(SessionAttempt s, long epoch) {
    log.info("worker {}: halting for epoch {}", workerId, epoch);
    worker.halt(epoch);
    workerHalted = true;
    s.send(WorkerMessage.newBuilder().setHalted(Halted.newBuilder().setEpoch(epoch)).build());
  }

  /** True while a restore downloads its piece: the session holds the next commands back. */
  boolean restoring() {
    return restoring;
  }

  /**
   * Downloads the piece (on the loop, without blocking it), retried once; then restores it and
   * answers {@code restored}. Until then the session holds every later command back, so commands
   * still run one at a time in arrival order.
   */
  private void restore(SessionAttempt s, long snapshotId, long epoch) {
    restoring = true;
    attempt(s, snapshotId, epoch, 1);
  }

  private void attempt(SessionAttempt s, long snapshotId, long epoch, int attempt) {
    try {
      download(s, snapshotId, epoch, attempt);
    } catch (RuntimeException e) { // the call could not even start
      log.error("worker {}: restore of snapshot {} could not start", workerId, snapshotId, e);
      gaveUp(s, snapshotId, epoch, "download could not start: " + e);
    }
  }

  private void download(SessionAttempt s, long snapshotId, long epoch, int attempt) {
    downloader.start(
        snapshotId,
        workerId,
        new SnapshotDownloader.Outcome() {
          @Override
          public void downloaded(PieceAssembler.Restorable piece) {
            if (abandoned(snapshotId)) {
              return;
            }
            try {
              restored(s, snapshotId, epoch, piece);
            } catch (Exception | Error e) {
              log.error("worker {}: the worker failed to carry out RESTORE", workerId, e);
              gaveUp(s, snapshotId, epoch, "the restore failed: " + e);
              return;
            }
            endRestore();
          }

          @Override
          public void failed(String reason) {
            log.warn(
                "worker {}: restore of snapshot {}, attempt {} of {}: {}",
                workerId,
                snapshotId,
                attempt,
                RESTORE_ATTEMPTS,
                reason);
            if (abandoned(snapshotId)) {
              return;
            }
            if (attempt < RESTORE_ATTEMPTS) {
              attempt(s, snapshotId, epoch, attempt + 1);
              return;
            }
            log.error(
                "worker {}: NOT restoring snapshot {}: {}; staying halted, waiting for the "
                    + "coordinator",
                workerId,
                snapshotId,
                reason);
            gaveUp(s, snapshotId, epoch, reason);
          }
        });
  }

  /**
   * The restore of {@code snapshotId} is given up: the worker stays halted, its listener and (if it
   * takes it) the coordinator are told, and the commands held back meanwhile may run.
   */
  private void gaveUp(SessionAttempt s, long snapshotId, long epoch, String reason) {
    try {
      if (takesRestoreFailed) {
        s.send(
            WorkerMessage.newBuilder()
                .setRestoreFailed(
                    RestoreFailed.newBuilder()
                        .setEpoch(epoch)
                        .setSnapshotId(snapshotId)
                        .setReason(reason))
                .build());
      }
      hooks.restoreFailed(snapshotId, reason);
    } finally {
      endRestore();
    }
  }

  private boolean abandoned(long snapshotId) {
    if (!cancelled) {
      return false;
    }
    log.info("worker {}: session closing, restore of snapshot {} abandoned", workerId, snapshotId);
    restoring = false;
    return true;
  }

  private void endRestore() {
    restoring = false;
    hooks.restoreEnded();
  }

  private void restored(
      SessionAttempt s, long snapshotId, long epoch, PieceAssembler.Restorable piece) {
    worker.restore(epoch, piece.piece(), piece.state());
    log.info(
        "worker {}: restored snapshot {} ({} state bytes{}, {} recorded messages) in epoch {}",
        workerId,
        snapshotId,
        piece.state().length,
        piece.fromLocalCopy() ? " from its local copy" : "",
        piece.piece().inFlightMessages(),
        epoch);
    s.send(
        WorkerMessage.newBuilder()
            .setRestored(
                Restored.newBuilder()
                    .setEpoch(epoch)
                    .setSnapshotId(snapshotId)
                    .setFromLocalCopy(piece.fromLocalCopy()))
            .build());
  }

  private void granted(SnapshotGranted g) {
    CompletableFuture<Long> future = hooks.takeGrant(g.getRequestId());
    if (future == null) {
      log.info(
          "worker {}: answer to unknown or abandoned snapshot request {}, ignored",
          workerId,
          g.getRequestId());
      return;
    }
    if (g.getSnapshotId() == 0) {
      log.info(
          "worker {}: snapshot request {} refused: {}",
          workerId,
          g.getRequestId(),
          g.getRefusedReason());
      future.completeExceptionally(
          new SnapshotRefusedException(g.getRequestId(), g.getRefusedReason()));
      return;
    }
    try {
      worker.startSnapshot(g.getSnapshotId());
      future.complete(g.getSnapshotId());
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
      throw e;
    }
  }
}
