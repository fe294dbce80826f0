package io.cutpoint.ops.store;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.SnapshotStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Copies every committed snapshot of one {@link SnapshotStore} into another under the same id:
 * manifest, pin, every worker's metadata and state chunks, every channel's recorded messages. It
 * goes through the interface only, so it copies between any two stores.
 *
 * <p>Each piece is checked twice: by the source when it is read (every chunk's and batch's CRC32C,
 * and for a committed snapshot the whole state's size and CRC32C, which this class checks against
 * the worker's metadata once more), and by the target after the commit ({@link
 * SnapshotStore#verifyIntegrity}, then the stored manifest must equal the source's). A snapshot
 * that fails either check does not stay in the target: a pending copy ends ABORTED, a committed one
 * is deleted.
 *
 * <p>It never overwrites. Before writing anything it compares every id with the target: the same
 * committed snapshot is left as it is (a re-run after an interrupted copy goes on from there); an
 * ABORTED snapshot that started as the source's did is what an interrupted copy left (opening the
 * store aborted it), and is replaced; anything else is a {@link Conflict}, and nothing is written.
 * PENDING, ABORTED and FAILED snapshots of the source are not copied.
 *
 * <p>The target's id counter needs nothing: both stores start it above the highest stored id when
 * opened. The target's epoch is raised to the source's (a rollback begun and finished at once), so
 * that a rollback after the move starts an epoch newer than any the workers saw.
 */
final class StoreCopy {

  /** What was done with one snapshot of the source. */
  enum Outcome {
    COPIED,
    /** The target already held the same committed snapshot (a re-run). */
    ALREADY_THERE,
    /** PENDING, ABORTED or FAILED in the source: not copied. */
    NOT_COMMITTED
  }

  /** One snapshot of the source; {@code bytes} are the state and recorded bytes copied. */
  record Entry(long id, SnapshotStatus status, Outcome outcome, long bytes) {}

  /**
   * Everything the copy did, oldest snapshot first.
   *
   * @param epochRaisedTo the target's new epoch, or -1 when it was left as it was
   */
  record Report(List<Entry> entries, long epochRaisedTo) {
    List<Entry> with(Outcome outcome) {
      return entries.stream().filter(e -> e.outcome() == outcome).toList();
    }

    long bytesCopied() {
      return with(Outcome.COPIED).stream().mapToLong(Entry::bytes).sum();
    }
  }

  /** The target holds other snapshots under ids of the source's: nothing was written. */
  static final class Conflict extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Conflict(String message) {
      super(message);
    }
  }

  /** A manifest of the source cannot be read; nothing was written. */
  static final class UnreadableSource extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableSource(String message) {
      super(message);
    }
  }

  /** Recorded messages go into the target in batches of about this many payload bytes. */
  static final int BATCH_BYTES = 1 << 20;

  private final SnapshotStore from;
  private final SnapshotStore to;
  private final Clock clock;
  private final Consumer<String> progress;

  StoreCopy(SnapshotStore from, SnapshotStore to, Clock clock, Consumer<String> progress) {
    this.from = from;
    this.to = to;
    this.clock = clock;
    this.progress = progress;
  }

  /**
   * Compares, then copies.
   *
   * @throws Conflict before anything is written, if the target holds a different snapshot under an
   *     id of the source's
   * @throws UnreadableSource before anything is written, if a manifest of the source cannot be read
   * @throws CorruptionException if a piece fails a check (the snapshots before it stay copied)
   */
  Report run() {
    List<SnapshotManifest> all = new ArrayList<>(from.list(Set.of()));
    Collections.reverse(all); // oldest first
    for (SnapshotManifest m : all) {
      if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED
          || m.getStatus() == SnapshotStatus.UNRECOGNIZED) {
        // a manifest that cannot be read may be of a committed snapshot: left out, it would be lost
        // to whoever retires the source after a copy that said it succeeded
        throw new UnreadableSource(
            "snapshot "
                + m.getSnapshotId()
                + ", manifest: "
                + (m.getDamage().isEmpty() ? "cannot be read" : m.getDamage())
                + "; nothing was copied (see `cutpoint store check` on the source)");
      }
    }
    List<String> conflicts = new ArrayList<>();
    List<SnapshotManifest> present = new ArrayList<>();
    for (SnapshotManifest m : all) {
      if (m.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
        continue;
      }
      Optional<SnapshotManifest> there = to.manifest(m.getSnapshotId());
      if (there.isEmpty()) {
        continue; // copied below
      }
      if (content(there.get()).equals(content(m))) {
        present.add(m);
      } else if (there.get().getStatus() != SnapshotStatus.SNAPSHOT_STATUS_ABORTED
          || !started(there.get()).equals(started(m))) {
        // (an ABORTED one that started as the source's is what an interrupted copy left: replaced)
        String status = there.get().getStatus().name().replace("SNAPSHOT_STATUS_", "");
        conflicts.add(m.getSnapshotId() + " (" + status + ")");
      }
    }
    if (!conflicts.isEmpty()) {
      throw new Conflict(
          "the target already holds snapshot"
              + (conflicts.size() == 1 ? " " : "s ")
              + String.join(", ", conflicts)
              + " with other content than the source's; nothing was copied (copy into an empty"
              + " store, or delete those snapshots there first)");
    }
    List<Entry> entries = new ArrayList<>();
    for (SnapshotManifest m : all) {
      long id = m.getSnapshotId();
      if (m.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
        entries.add(new Entry(id, m.getStatus(), Outcome.NOT_COMMITTED, 0));
      } else if (present.contains(m)) {
        to.verifyIntegrity(id);
        if (to.manifest(id).orElseThrow().getPinned() != m.getPinned()) {
          to.setPinned(id, m.getPinned());
        }
        progress.accept("snapshot " + id + ": already in the target, verified");
        entries.add(new Entry(id, m.getStatus(), Outcome.ALREADY_THERE, 0));
      } else {
        if (to.manifest(id).isPresent()) {
          discard(id); // the ABORTED leftover of an interrupted copy
        }
        long bytes = copy(m);
        progress.accept("snapshot " + id + ": copied and verified, " + bytes + " bytes");
        entries.add(new Entry(id, m.getStatus(), Outcome.COPIED, bytes));
      }
    }
    return new Report(entries, raiseEpoch(entries));
  }

  /** Copies one committed snapshot; returns the state and recorded bytes copied. */
  private long copy(SnapshotManifest source) {
    long id = source.getSnapshotId();
    SnapshotManifest complete = source.toBuilder().clearDamage().build();
    SnapshotManifest pending =
        started(complete).toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING).build();
    to.createPending(pending);
    boolean committed = false;
    try {
      long bytes = 0;
      for (WorkerPiece piece : complete.getPiecesList()) {
        bytes += copyWorker(id, piece);
      }
      for (WorkerDecl decl : complete.getTopology().getWorkersList()) {
        for (String sender : decl.getIncomingList()) {
          bytes += copyChannel(id, ChannelId.of(sender, decl.getWorkerId()));
        }
      }
      to.commit(complete);
      committed = true;
      to.verifyIntegrity(id);
      SnapshotManifest stored =
          to.manifest(id)
              .orElseThrow(() -> new CorruptionException("snapshot " + id + ": gone after commit"));
      if (!stored.toBuilder().clearDamage().build().equals(complete)) {
        throw new CorruptionException(
            "snapshot " + id + ": the target stored another manifest than the source's");
      }
      return bytes;
    } catch (RuntimeException e) {
      undo(pending, committed, e);
      throw e;
    }
  }

  /** The worker's metadata and state, checked against each other; returns the state's bytes. */
  private long copyWorker(long id, WorkerPiece piece) {
    String worker = piece.getWorkerId();
    String who = "snapshot " + id + ", worker " + worker;
    LocalSnapshotMeta meta =
        from.workerMeta(id, worker)
            .orElseThrow(() -> new CorruptionException(who + ", metadata: missing"));
    CRC32C crc = new CRC32C();
    long[] size = {0};
    int[] index = {0};
    int chunks =
        from.readState(
            id,
            worker,
            chunk -> {
              crc.update(chunk);
              size[0] += chunk.length;
              to.putCheckedStateChunk(id, worker, index[0]++, chunk, Crc32c.of(chunk));
            });
    int stateCrc = Crc32c.value(crc);
    if (chunks != piece.getStateChunks()
        || size[0] != meta.getStateBytes()
        || stateCrc != meta.getStateCrc32C()) {
      throw new CorruptionException(
          String.format(
              "%s, state: %d chunks, %d bytes with CRC32C %08x read; %d chunks, %d bytes with"
                  + " %08x committed",
              who,
              chunks,
              size[0],
              stateCrc,
              piece.getStateChunks(),
              meta.getStateBytes(),
              meta.getStateCrc32C()));
    }
    to.putWorkerMeta(id, meta);
    return size[0];
  }

  /** One channel's recorded messages, in batches; returns their payload bytes. */
  private long copyChannel(long id, ChannelId channel) {
    List<InTransitMessage> messages = from.readChannel(id, channel);
    long total = 0;
    int start = 0;
    long batchBytes = 0;
    for (int i = 0; i < messages.size(); i++) {
      int length = messages.get(i).payload().length;
      total += length;
      batchBytes += length;
      if (batchBytes >= BATCH_BYTES || i == messages.size() - 1) {
        to.putChannelRecording(id, channel, List.copyOf(messages.subList(start, i + 1)));
        start = i + 1;
        batchBytes = 0;
      }
    }
    return total;
  }

  /** Deletes what this copy wrote of snapshot {@code id}, pinned as its source or not. */
  private void discard(long id) {
    if (to.manifest(id).map(SnapshotManifest::getPinned).orElse(false)) {
      to.setPinned(id, false);
    }
    to.delete(id);
  }

  /** A failed copy leaves nothing: the pending snapshot ends ABORTED, a committed one goes. */
  private void undo(SnapshotManifest pending, boolean committed, RuntimeException cause) {
    try {
      if (committed) {
        discard(pending.getSnapshotId());
      } else {
        to.finish(
            pending.toBuilder()
                .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
                .setReason("copy failed: " + cause.getMessage())
                .setFinishedAtUnixMs(clock.millis())
                .build());
      }
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * Raises the target's epoch to the source's when it is lower and the target holds a committed
   * snapshot of the copy to name in the (at once finished) rollback; finishes that rollback if an
   * interrupted copy began it. Returns the new epoch, or -1.
   */
  private long raiseEpoch(List<Entry> entries) {
    long epoch = from.epoch();
    Optional<SnapshotStore.RollbackIntent> begun = to.rollbackInProgress();
    if (begun.isPresent()) {
      if (begun.get().epoch() == epoch && to.epoch() == epoch) {
        to.finishRollback(epoch);
        return epoch;
      }
      progress.accept(
          "the target has a rollback in progress (to snapshot "
              + begun.get().snapshotId()
              + "): its epoch is left at "
              + to.epoch());
      return -1;
    }
    Optional<Entry> anchor =
        entries.stream().filter(e -> e.outcome() != Outcome.NOT_COMMITTED).findFirst();
    if (epoch <= to.epoch() || anchor.isEmpty()) {
      return -1;
    }
    to.beginRollback(epoch, anchor.get().id());
    to.finishRollback(epoch);
    return epoch;
  }

  /** What a committed snapshot holds: all of its manifest but the pin and the damage report. */
  private static SnapshotManifest content(SnapshotManifest m) {
    return m.toBuilder().clearPinned().clearDamage().build();
  }

  /** What its pending manifest held when it started: the fields that name one snapshot. */
  static SnapshotManifest started(SnapshotManifest m) {
    return SnapshotManifest.newBuilder()
        .setSnapshotId(m.getSnapshotId())
        .setEpoch(m.getEpoch())
        .setStartedAtUnixMs(m.getStartedAtUnixMs())
        .addAllInitiators(m.getInitiatorsList())
        .setTopology(m.getTopology())
        .setTrigger(m.getTrigger())
        .build();
  }
}
