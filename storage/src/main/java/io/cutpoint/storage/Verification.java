package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;

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

  void verify(SnapshotManifest manifest) {
    long id = manifest.getSnapshotId();
    reader.checkAll(rocks.workerMeta, id, "metadata");
    reader.checkAll(rocks.channelStates, id, "channel");
    if (manifest.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      reader.checkAll(rocks.stateChunks, id, "state");
      return;
    }
    for (WorkerPiece piece : manifest.getPiecesList()) {
      String worker = piece.getWorkerId();
      if (reader.workerMeta(id, worker).isEmpty()) {
        throw new CorruptionException(
            "snapshot " + id + ", worker " + worker + ", metadata: missing");
      }
      reader.readState(id, worker, chunk -> {});
      long messages = reader.countIncoming(id, worker);
      if (messages != piece.getInFlightMessages()) {
        throw new CorruptionException(
            "snapshot "
                + id
                + ", worker "
                + worker
                + ", incoming channels: "
                + messages
                + " recorded messages stored, "
                + piece.getInFlightMessages()
                + " committed");
      }
    }
    for (WorkerDecl decl : manifest.getTopology().getWorkersList()) {
      for (String from : decl.getIncomingList()) {
        reader.readChannel(id, ChannelId.of(from, decl.getWorkerId()), true);
      }
    }
  }
}
