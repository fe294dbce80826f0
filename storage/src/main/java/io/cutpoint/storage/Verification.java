package io.cutpoint.storage;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Reads every piece of a snapshot and checks every checksum and count: for a COMPLETE snapshot,
 * each worker's metadata, every state chunk (count, size and whole-state CRC32C), every recorded
 * batch (no gap in sequence numbers, the committed number of in-flight messages); for any other
 * status, the CRC of whatever pieces are stored.
 */
final class Verification {
  private final StoreReader reader;
  private final RocksHandles rocks;

  Verification(StoreReader reader, RocksHandles rocks) {
    this.reader = reader;
    this.rocks = rocks;
  }

  /**
   * Checks {@code manifest}'s snapshot; the state of a worker in {@code held} is not read when its
   * piece's metadata names that state (see {@link SnapshotStore#verifyIntegrity(long,
   * java.util.Map)}).
   */
  void verify(SnapshotManifest manifest, Map<String, HeldState> held) {
    long id = manifest.getSnapshotId();
    reader.checkAll(rocks.workerMeta, id, "metadata");
    reader.checkAll(rocks.channelStates, id, "channel");
    if (manifest.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      reader.checkAll(rocks.stateChunks, id, "state");
      return;
    }
    // The pieces are read in parallel (the common pool and this thread): a rollback waits for this
    // read of every state byte before it halts anyone. The failure reported is the first piece's
    // in manifest order, as a read one after the other would report it.
    List<WorkerPiece> pieces = manifest.getPiecesList();
    RuntimeException[] failures = new RuntimeException[pieces.size()];
    IntStream.range(0, pieces.size())
        .parallel()
        .forEach(
            i -> {
              try {
                verifyPiece(id, pieces.get(i), held.get(pieces.get(i).getWorkerId()));
              } catch (RuntimeException e) {
                failures[i] = e;
              }
            });
    for (RuntimeException failure : failures) {
      if (failure != null) {
        throw failure;
      }
    }
    for (WorkerDecl decl : manifest.getTopology().getWorkersList()) {
      for (String from : decl.getIncomingList()) {
        reader.readChannel(id, ChannelId.of(from, decl.getWorkerId()), true);
      }
    }
  }

  private void verifyPiece(long id, WorkerPiece piece, HeldState held) {
    String worker = piece.getWorkerId();
    LocalSnapshotMeta meta =
        reader
            .workerMeta(id, worker)
            .orElseThrow(
                () ->
                    new CorruptionException(
                        "snapshot " + id + ", worker " + worker + ", metadata: missing"));
    if (held == null || !held.is(meta)) {
      reader.checkState(id, worker);
    }
    StoreParts.checkInFlight(id, piece, reader.countIncoming(id, worker));
  }
}
