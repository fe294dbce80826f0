package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import io.cutpoint.api.Crc32cCombine;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * What the store knows about one PENDING snapshot while its pieces arrive: which chunks, recordings
 * and metadata were stored, so that {@link RocksSnapshotStore#commit} can refuse an incomplete
 * snapshot, or one whose stored counters are not the ones the caller verified, and fill in the
 * sizes of the manifest. Pieces take the read lock (many at once); commit, finish and delete take
 * the write lock and close the snapshot, after which pieces are refused. Lives only in memory: a
 * PENDING snapshot does not survive a restart.
 */
final class PieceLedger {
  final long id;
  final ReadWriteLock lock = new ReentrantReadWriteLock();
  private boolean closed;
  private final Map<String, Worker> workers = new HashMap<>();

  /** Content chunks this snapshot uploaded, and those it holds that committed snapshots stored. */
  private final Map<ByteString, ContentChunks.Stored> uploaded = new HashMap<>();

  private final Map<ByteString, ContentChunks.Stored> held = new HashMap<>();

  PieceLedger(long id) {
    this.id = id;
  }

  /** Must hold the write lock. */
  void close() {
    closed = true;
  }

  /** Must hold a lock. */
  boolean isClosed() {
    return closed;
  }

  /** A state chunk of {@code length} bytes whose CRC32C is {@code crc} was stored. */
  synchronized void chunk(String workerId, int index, int length, int crc) {
    worker(workerId).chunk(index, length, crc);
  }

  /** A content chunk's body was stored for this snapshot. */
  synchronized void contentChunk(ByteString hash, ContentChunks.Stored stored) {
    uploaded.put(hash, stored);
  }

  /** A committed snapshot's chunk is kept for this one until it ends. */
  synchronized void hold(ByteString hash, ContentChunks.Stored stored) {
    held.putIfAbsent(hash, stored);
  }

  /** Whether this snapshot uploaded or holds the chunk: it must not be deleted meanwhile. */
  synchronized boolean usesContent(ByteString hash) {
    return uploaded.containsKey(hash) || held.containsKey(hash);
  }

  /** The content chunks whose bodies were stored for this snapshot. */
  synchronized java.util.Set<ByteString> uploadedContent() {
    return new java.util.HashSet<>(uploaded.keySet());
  }

  /** Every content chunk this snapshot uploaded or holds. */
  synchronized java.util.Set<ByteString> contentInUse() {
    java.util.Set<ByteString> all = new java.util.HashSet<>(uploaded.keySet());
    all.addAll(held.keySet());
    return all;
  }

  /**
   * The content chunks the stored pieces use, each once, with their length and CRC32C: the
   * references a commit adds. Call after {@link #completed}, which checked that each is available.
   */
  synchronized Map<ByteString, ContentChunks.Stored> referenced() {
    Map<ByteString, ContentChunks.Stored> out = new java.util.LinkedHashMap<>();
    for (Worker w : workers.values()) {
      if (w.meta != null && w.chunkSizes.isEmpty()) { // numbered chunks: a list is not used
        out.putAll(ContentChunks.of(w.meta));
      }
    }
    return out;
  }

  synchronized void recording(ChannelId channel, List<InTransitMessage> messages) {
    long bytes = 0;
    for (InTransitMessage m : messages) {
      bytes += m.payload().length;
    }
    worker(channel.to())
        .batches
        .computeIfAbsent(channel, c -> new TreeMap<>())
        .put(messages.get(0).seq(), new long[] {messages.size(), bytes});
  }

  synchronized void forget(String workerId) {
    workers.remove(workerId);
  }

  synchronized void meta(LocalSnapshotMeta meta) {
    worker(meta.getWorkerId()).meta = meta;
  }

  /**
   * Checks that every piece of {@code complete} arrived and returns the manifest with the pieces
   * and totals filled in. A non-zero count or size that the caller put in the manifest must match
   * what was stored.
   *
   * @throws StoreException naming what is missing or does not match
   */
  synchronized SnapshotManifest completed(SnapshotManifest complete) {
    TreeSet<String> ids = new TreeSet<>(workers.keySet());
    for (WorkerDecl decl : complete.getTopology().getWorkersList()) {
      ids.add(decl.getWorkerId());
    }
    Map<String, WorkerPiece> given = new HashMap<>();
    for (WorkerPiece piece : complete.getPiecesList()) {
      given.put(piece.getWorkerId(), piece);
    }
    List<WorkerPiece> pieces = new ArrayList<>();
    long stateBytes = 0;
    long channelBytes = 0;
    long inFlight = 0;
    for (String workerId : ids) {
      WorkerPiece piece = workers.getOrDefault(workerId, new Worker()).piece(workerId);
      WorkerPiece declared = given.get(workerId);
      if (declared != null) {
        if (declared.hasMeta()
            && !StoreParts.manifestMeta(declared.getMeta()).equals(piece.getMeta())) {
          throw new StoreException(
              "commit of snapshot "
                  + id
                  + " refused: the counters of worker "
                  + workerId
                  + " that were verified are not the ones stored");
        }
        same(workerId + " state chunks", declared.getStateChunks(), piece.getStateChunks());
        same(workerId + " channel bytes", declared.getChannelBytes(), piece.getChannelBytes());
        same(
            workerId + " in-flight messages",
            declared.getInFlightMessages(),
            piece.getInFlightMessages());
        // when the coordinator got the piece (the snapshot's trace) is the coordinator's to say
        piece =
            piece.toBuilder()
                .setHeaderReceivedMicros(declared.getHeaderReceivedMicros())
                .setDeliveredMicros(declared.getDeliveredMicros())
                .build();
      }
      pieces.add(piece);
      stateBytes += piece.getMeta().getStateBytes();
      channelBytes += piece.getChannelBytes();
      inFlight += piece.getInFlightMessages();
    }
    same("total state bytes", complete.getTotalStateBytes(), stateBytes);
    same("total channel bytes", complete.getTotalChannelBytes(), channelBytes);
    same("in-flight messages", complete.getInFlightMessages(), inFlight);
    return complete.toBuilder()
        .clearPieces()
        .addAllPieces(pieces)
        .setTotalStateBytes(stateBytes)
        .setTotalChannelBytes(channelBytes)
        .setInFlightMessages(inFlight)
        .build();
  }

  private void same(String what, long declared, long stored) {
    if (declared != 0 && declared != stored) {
      throw new StoreException(
          "commit of snapshot "
              + id
              + " refused: "
              + what
              + " declared "
              + declared
              + " but "
              + stored
              + " stored");
    }
  }

  private Worker worker(String workerId) {
    return workers.computeIfAbsent(workerId, w -> new Worker());
  }

  private final class Worker {
    final TreeMap<Integer, Integer> chunkSizes = new TreeMap<>();
    final Map<ChannelId, TreeMap<Long, long[]>> batches = new HashMap<>();

    /** The CRC32C of the chunks stored in order so far, combined from theirs. */
    int runningCrc;

    int nextInOrder;
    boolean inOrder = true;
    LocalSnapshotMeta meta;

    void chunk(int index, int length, int crc) {
      Integer previous = chunkSizes.put(index, length);
      if (inOrder && previous == null && index == nextInOrder) {
        runningCrc = Crc32cCombine.combine(runningCrc, crc, length);
        nextInOrder++;
      } else {
        inOrder = false; // re-sent or out of order: the whole-state CRC is checked on read
      }
    }

    WorkerPiece piece(String workerId) {
      String who = "commit of snapshot " + id + " refused: worker " + workerId;
      if (meta == null) {
        throw new StoreException(who + " has no stored metadata");
      }
      // content-addressed unless numbered chunks arrived (a store that keeps chunks per snapshot)
      int stateChunks =
          meta.getContentCount() > 0 && chunkSizes.isEmpty()
              ? contentChunks(who)
              : indexedChunks(who);
      long channelBytes = 0;
      long messages = 0;
      for (TreeMap<Long, long[]> channel : batches.values()) {
        for (long[] batch : channel.values()) {
          messages += batch[0];
          channelBytes += batch[1];
        }
      }
      return WorkerPiece.newBuilder()
          .setWorkerId(workerId)
          .setMeta(StoreParts.manifestMeta(meta))
          .setStateChunks(stateChunks)
          .setChannelBytes(channelBytes)
          .setInFlightMessages(messages)
          .build();
    }

    /**
     * A content-addressed state: each chunk was uploaded for this snapshot or is held from a
     * committed one, with the length and CRC32C the meta lists, and those add up to the state.
     */
    private int contentChunks(String who) {
      long bytes = 0;
      int crc = 0;
      for (int i = 0; i < meta.getContentCount(); i++) {
        io.cutpoint.api.v1.ContentChunk c = meta.getContent(i);
        ContentChunks.Stored have = uploaded.get(c.getSha256());
        if (have == null) {
          have = held.get(c.getSha256());
        }
        if (have == null) {
          throw new StoreException(
              who
                  + ": "
                  + ContentChunks.describe(i, c.getSha256())
                  + " was neither uploaded nor held");
        }
        if (have.length() != c.getLength() || have.crc32c() != c.getCrc32C()) {
          throw new StoreException(
              String.format(
                  "%s: %s is listed with %d bytes and CRC32C %08x, stored with %d bytes and %08x",
                  who,
                  ContentChunks.describe(i, c.getSha256()),
                  c.getLength(),
                  c.getCrc32C(),
                  have.length(),
                  have.crc32c()));
        }
        bytes += c.getLength();
        crc = Crc32cCombine.combine(crc, c.getCrc32C(), c.getLength());
      }
      if (bytes != meta.getStateBytes() || crc != meta.getStateCrc32C()) {
        throw new StoreException(
            String.format(
                "%s declared %d state bytes with CRC32C %08x but its content chunks give %d with"
                    + " %08x",
                who, meta.getStateBytes(), meta.getStateCrc32C(), bytes, crc));
      }
      return meta.getContentCount();
    }

    private int indexedChunks(String who) {
      if (!chunkSizes.isEmpty() && chunkSizes.lastKey() != chunkSizes.size() - 1) {
        throw new StoreException(
            who
                + " has "
                + chunkSizes.size()
                + " state chunks but the last index is "
                + chunkSizes.lastKey()
                + " (chunks missing)");
      }
      long bytes = chunkSizes.values().stream().mapToLong(Integer::longValue).sum();
      if (bytes != meta.getStateBytes()) {
        throw new StoreException(
            who
                + " declared "
                + meta.getStateBytes()
                + " state bytes but "
                + bytes
                + " are stored");
      }
      if (inOrder && runningCrc != meta.getStateCrc32C()) {
        throw new StoreException(
            String.format(
                "%s declared state CRC32C %08x but the stored chunks give %08x",
                who, meta.getStateCrc32C(), runningCrc));
      }
      return chunkSizes.size();
    }
  }
}
