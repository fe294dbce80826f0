package io.cutpoint.ha;

import com.google.protobuf.InvalidProtocolBufferException;
import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.ChunkDamageException;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.HeldState;
import io.cutpoint.storage.StoreParts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Every read of a snapshot's objects, with the same checks as the RocksDB store's reader: each
 * object's frame before its payload is used; for a COMPLETE snapshot the committed chunk count, the
 * whole-state size and CRC32C, the committed number of recorded messages, and no gap between the
 * batches of a channel. A failure is a {@link CorruptionException} naming the piece.
 */
final class PieceReader {
  private final Bucket bucket;
  private final ObjectKeys keys;

  PieceReader(Bucket bucket, ObjectKeys keys) {
    this.bucket = bucket;
    this.keys = keys;
  }

  Optional<LocalSnapshotMeta> workerMeta(long id, String workerId) {
    String piece = "snapshot " + id + ", worker " + workerId + ", metadata";
    return bucket
        .get(keys.meta(id, workerId), () -> piece)
        .map(
            payload -> {
              try {
                return LocalSnapshotMeta.parseFrom(payload);
              } catch (InvalidProtocolBufferException e) {
                throw new CorruptionException(piece + ": unreadable: " + e.getMessage());
              }
            });
  }

  /**
   * Streams a worker's chunks in index order, each checked before it is passed on. A state whose
   * metadata lists content chunks and that has no numbered chunk is read from those, whatever the
   * snapshot's status (as the RocksDB store reads it). Otherwise, for a COMPLETE snapshot the
   * committed chunks are read by index (a missing one fails before the chunk after it), then size
   * and CRC32C are checked against the metadata; for any other the stored chunks are listed and
   * must have no gap.
   */
  int readState(
      Optional<SnapshotManifest> manifest, long id, String workerId, Consumer<byte[]> sink) {
    String who = "snapshot " + id + ", worker " + workerId;
    boolean complete =
        manifest.map(m -> m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).orElse(false);
    Optional<WorkerPiece> committed =
        complete
            ? manifest.get().getPiecesList().stream()
                .filter(p -> p.getWorkerId().equals(workerId))
                .findFirst()
            : Optional.empty();
    List<String> stored = bucket.keys(keys.stateDir(id, workerId));
    Optional<LocalSnapshotMeta> listed = workerMeta(id, workerId);
    if (stored.isEmpty() && listed.isPresent() && listed.get().getContentCount() > 0) {
      return readContent(listed.get(), who, sink);
    }
    if (committed.isEmpty()) {
      for (int n = 0; n < stored.size(); n++) {
        int index = keys.chunkIndexOf(stored.get(n));
        if (index != n) {
          throw new CorruptionException(who + ", state chunk " + n + ": missing");
        }
        sink.accept(chunk(id, workerId, n, who).orElseThrow());
      }
      return stored.size();
    }
    LocalSnapshotMeta meta =
        listed.orElseThrow(() -> new CorruptionException(who + ", metadata: missing"));
    int count = committed.get().getStateChunks();
    CRC32C crc = new CRC32C();
    long bytes = 0;
    for (int index = 0; index < count; index++) {
      int i = index;
      byte[] data =
          chunk(id, workerId, index, who)
              .orElseThrow(
                  () ->
                      new CorruptionException(
                          who
                              + ", state chunk "
                              + i
                              + ": missing ("
                              + count
                              + " chunks committed)"));
      crc.update(data);
      bytes += data.length;
      sink.accept(data);
    }
    if (bytes != meta.getStateBytes() || (int) crc.getValue() != meta.getStateCrc32C()) {
      throw new CorruptionException(
          String.format(
              "%s, state: %d bytes with CRC32C %08x read, %d bytes with %08x committed",
              who, bytes, (int) crc.getValue(), meta.getStateBytes(), meta.getStateCrc32C()));
    }
    return count;
  }

  /**
   * A content-addressed state: the chunks its metadata lists, each checked against its CRC32C and
   * length before it is passed on. The list itself was checked against the state's size and CRC32C
   * when the state arrived.
   */
  private int readContent(LocalSnapshotMeta meta, String who, Consumer<byte[]> sink) {
    for (int i = 0; i < meta.getContentCount(); i++) {
      ContentChunk c = meta.getContent(i);
      String piece = who + ", " + StoreParts.contentChunk(i, c.getSha256());
      byte[] data;
      try {
        data =
            bucket
                .get(keys.contentChunk(c.getSha256(), c.getLength(), c.getCrc32C()), () -> piece)
                .orElseThrow(() -> new ChunkDamageException(piece + ": missing", c.getSha256()));
      } catch (ChunkDamageException e) {
        throw e;
      } catch (CorruptionException e) {
        throw new ChunkDamageException(e.getMessage(), c.getSha256());
      }
      int crc = Crc32c.of(data);
      if (crc != c.getCrc32C() || data.length != c.getLength()) {
        throw new ChunkDamageException(
            String.format(
                "%s: CRC32C mismatch (%d bytes with %08x read, %d with %08x listed)",
                piece, data.length, crc, c.getLength(), c.getCrc32C()),
            c.getSha256());
      }
      sink.accept(data);
    }
    return meta.getContentCount();
  }

  private Optional<byte[]> chunk(long id, String workerId, int index, String who) {
    return bucket.get(keys.stateChunk(id, workerId, index), () -> who + ", state chunk " + index);
  }

  /** The messages of one channel; for a COMPLETE snapshot a gap between batches is corruption. */
  List<InTransitMessage> readChannel(long id, ChannelId channel, boolean complete) {
    List<InTransitMessage> messages = new ArrayList<>();
    String what = "snapshot " + id + ", channel " + channel;
    for (String key : bucket.keys(keys.channel(id, channel))) {
      appendBatch(what, key, complete, messages);
    }
    return messages;
  }

  /** Every recorded message on the channels into {@code receiver}; returns their count. */
  long countIncoming(long id, String receiver) {
    long total = 0;
    for (String key : bucket.keys(keys.incoming(id, receiver))) {
      String what = "snapshot " + id + ", channel " + keys.channelOf(id, receiver, key);
      total += appendBatch(what, key, false, new ArrayList<>());
    }
    return total;
  }

  private int appendBatch(String what, String key, boolean contiguous, List<InTransitMessage> out) {
    long first = keys.batchSeqOf(key);
    String piece = what + ", batch from #" + first;
    byte[] payload =
        bucket
            .get(key, () -> piece)
            .orElseThrow(() -> new CorruptionException(piece + ": missing (listed, then gone)"));
    ChannelRecording batch;
    try {
      batch = ChannelRecording.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptionException(piece + ": unreadable: " + e.getMessage());
    }
    if (contiguous && !out.isEmpty() && out.get(out.size() - 1).seq() + 1 != first) {
      throw new CorruptionException(
          what
              + ": messages #"
              + (out.get(out.size() - 1).seq() + 1)
              + " to #"
              + (first - 1)
              + " missing");
    }
    for (RecordedMessage m : batch.getMessagesList()) {
      out.add(new InTransitMessage(m.getSeq(), m.getPayload().toByteArray()));
    }
    return batch.getMessagesCount();
  }

  /**
   * Reads every piece and checks every checksum; for a COMPLETE snapshot also every count the
   * commit recorded. The state of a worker in {@code held} is not read when its piece's metadata
   * names that state ({@link io.cutpoint.storage.SnapshotStore#verifyIntegrity(long, Map)}).
   */
  void verify(SnapshotManifest manifest, Map<String, HeldState> held) {
    long id = manifest.getSnapshotId();
    if (manifest.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      for (String key : bucket.keys(keys.snapshot(id))) {
        bucket.get(key, () -> "snapshot " + id + ", object " + key);
      }
      return;
    }
    for (WorkerPiece piece : manifest.getPiecesList()) {
      String worker = piece.getWorkerId();
      LocalSnapshotMeta meta =
          workerMeta(id, worker)
              .orElseThrow(
                  () ->
                      new CorruptionException(
                          "snapshot " + id + ", worker " + worker + ", metadata: missing"));
      HeldState mine = held.get(worker);
      if (mine == null || !mine.is(meta)) {
        readState(Optional.of(manifest), id, worker, chunk -> {});
      }
      StoreParts.checkInFlight(id, piece, countIncoming(id, worker));
    }
    for (WorkerDecl decl : manifest.getTopology().getWorkersList()) {
      for (String from : decl.getIncomingList()) {
        readChannel(id, ChannelId.of(from, decl.getWorkerId()), true);
      }
    }
  }
}
