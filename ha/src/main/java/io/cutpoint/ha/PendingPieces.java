package io.cutpoint.ha;

import com.google.protobuf.ByteString;
import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.NoSuchSnapshotException;
import io.cutpoint.storage.NotPendingException;
import io.cutpoint.storage.StoreException;
import io.cutpoint.storage.StoreParts;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;

/**
 * The pieces of the snapshots that are PENDING in one {@link S3SnapshotStore}: each piece checked
 * on arrival (as the RocksDB store checks it), uploaded as one object, and recorded in memory so
 * that commit can refuse an incomplete snapshot. Pieces of one snapshot go up concurrently under
 * its read lock; ending it (commit, finish) takes the write lock, so it waits for the uploads in
 * progress and refuses later ones with {@link NotPendingException}.
 */
final class PendingPieces {
  /** What ends a pending snapshot, run under its write lock. */
  interface End {
    void apply(StoreParts.Pending p);
  }

  private final ConcurrentHashMap<Long, StoreParts.Pending> pending = new ConcurrentHashMap<>();
  private final Bucket bucket;
  private final ObjectKeys keys;
  private final ContentObjects content;
  private final Catalog catalog;
  private final BooleanSupplier fenced;
  private final String name;

  /**
   * @param fenced whether the store knows it is fenced: then pieces are refused too
   */
  PendingPieces(
      Bucket bucket,
      ObjectKeys keys,
      ContentObjects content,
      Catalog catalog,
      BooleanSupplier fenced,
      String name) {
    this.bucket = bucket;
    this.keys = keys;
    this.content = content;
    this.catalog = catalog;
    this.fenced = fenced;
    this.name = name;
  }

  void begin(long id) {
    pending.put(id, new StoreParts.Pending(id));
  }

  boolean contains(long id) {
    return pending.containsKey(id);
  }

  Set<Long> ids() {
    return Set.copyOf(pending.keySet());
  }

  void clear() {
    pending.clear();
  }

  void putStateChunk(long snapshotId, String workerId, int index, byte[] data, int crc32c) {
    String piece = "snapshot " + snapshotId + ", worker " + workerId + ", state chunk " + index;
    if (index < 0) {
      throw new IllegalArgumentException(piece + ": negative index");
    }
    if (Crc32c.of(data) != crc32c) {
      throw new IllegalArgumentException(
          String.format(
              "%s: CRC32C mismatch on arrival (sent %08x, data gives %08x)",
              piece, crc32c, Crc32c.of(data)));
    }
    write(
        snapshotId,
        "store " + piece,
        keys.stateChunk(snapshotId, workerId, index),
        data,
        p -> p.chunk(workerId, index, data));
  }

  /** Which of {@code hashes} the bucket holds; the snapshot keeps those until it ends. */
  boolean[] hold(long snapshotId, List<ByteString> hashes) {
    return whilePending(
        snapshotId, "hold content chunks for snapshot " + snapshotId, p -> content.hold(p, hashes));
  }

  /** Stores a content chunk whose SHA-256 and CRC32C the caller checked. */
  void putContentChunk(
      long snapshotId, String workerId, int index, ByteString sha256, byte[] data, int crc32c) {
    String operation = StoreParts.storeContentChunk(snapshotId, workerId, index, sha256);
    whilePending(
        snapshotId,
        operation,
        p -> {
          content.put(p, new ContentObjects.Chunk(sha256, data.length, crc32c), data, operation);
          return null;
        });
  }

  /** The snapshots pending now. */
  java.util.Collection<StoreParts.Pending> all() {
    return List.copyOf(pending.values());
  }

  void putChannelRecording(long snapshotId, ChannelId channel, List<InTransitMessage> messages) {
    if (messages.isEmpty()) {
      return; // an empty recording is the absence of batches
    }
    ChannelRecording batch = StoreParts.recordingBatch(snapshotId, channel, messages);
    write(
        snapshotId,
        "store recording of snapshot " + snapshotId + ", channel " + channel,
        keys.batch(snapshotId, channel, messages.get(0).seq()),
        batch.toByteArray(),
        p -> p.recording(channel, messages));
  }

  void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta) {
    if (meta.getWorkerId().isEmpty()) {
      throw new IllegalArgumentException("worker metadata without a worker id");
    }
    if (meta.getSnapshotId() != snapshotId && meta.getSnapshotId() != 0) {
      throw new IllegalArgumentException(
          "metadata of snapshot " + meta.getSnapshotId() + " stored under " + snapshotId);
    }
    LocalSnapshotMeta stored = meta.toBuilder().setSnapshotId(snapshotId).build();
    write(
        snapshotId,
        "store metadata of snapshot " + snapshotId + ", worker " + meta.getWorkerId(),
        keys.meta(snapshotId, meta.getWorkerId()),
        stored.toByteArray(),
        p -> p.meta(stored));
  }

  /** Deletes one worker's chunks, metadata and incoming batches of a pending snapshot. */
  void discard(long snapshotId, String workerId) {
    String operation = "discard pieces of snapshot " + snapshotId + ", worker " + workerId;
    StoreParts.Pending p = pendingOrThrow(snapshotId, operation);
    Lock lock = p.lock().writeLock();
    lock.lock();
    try {
      if (p.isClosed()) {
        throw notPending(snapshotId, operation);
      }
      List<String> gone = new ArrayList<>(bucket.keys(keys.stateDir(snapshotId, workerId)));
      gone.addAll(bucket.keys(keys.incoming(snapshotId, workerId)));
      gone.add(keys.meta(snapshotId, workerId));
      bucket.delete(gone, operation);
      p.forget(workerId);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code end} with the snapshot's write lock and {@code manifestWrites}, and forgets the
   * snapshot as pending before it lets go of them: a release that waits for them does not count the
   * snapshot's holds. If {@code end} throws, the snapshot stays pending.
   */
  void end(long id, String operation, Object manifestWrites, End end) {
    StoreParts.Pending p = pendingOrThrow(id, operation);
    Lock lock = p.lock().writeLock();
    lock.lock();
    try {
      if (p.isClosed()) {
        throw notPending(id, operation);
      }
      synchronized (manifestWrites) {
        end.apply(p);
        p.close();
        pending.remove(id, p);
      }
    } finally {
      lock.unlock();
    }
  }

  private void write(long id, String operation, String key, byte[] payload, End record) {
    whilePending(
        id,
        operation,
        p -> {
          bucket.put(key, payload, operation);
          record.apply(p);
          return null;
        });
  }

  /** Runs {@code body} under the snapshot's read lock, while it is pending and not fenced. */
  private <T> T whilePending(
      long id, String operation, java.util.function.Function<StoreParts.Pending, T> body) {
    StoreParts.Pending p = pendingOrThrow(id, operation);
    Lock lock = p.lock().readLock();
    lock.lock();
    try {
      if (p.isClosed()) {
        throw notPending(id, operation);
      }
      if (fenced.getAsBoolean()) {
        throw new FencedException(
            name
                + ": fenced: cannot "
                + operation
                + " under leader "
                + catalog.term()
                + ": a newer term was taken",
            catalog.term());
      }
      return body.apply(p);
    } finally {
      lock.unlock();
    }
  }

  private StoreParts.Pending pendingOrThrow(long id, String operation) {
    StoreParts.Pending p = pending.get(id);
    if (p == null) {
      throw notPending(id, operation);
    }
    return p;
  }

  private StoreException notPending(long id, String operation) {
    Optional<Catalog.Versioned<SnapshotManifest>> m = catalog.manifest(id);
    return m.isEmpty()
        ? new NoSuchSnapshotException(id, operation)
        : new NotPendingException(id, m.get().value().getStatus(), operation);
  }
}
