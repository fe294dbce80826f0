package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * {@link SnapshotStore} on an embedded RocksDB. The layout, what is synced, what opening after a
 * crash does, retention and corruption reports are described in {@code storage.md}.
 *
 * <p>Thread-safe. Every call holds a read lock on the store, {@link #close()} the write lock, so no
 * call ever touches a released native handle: after close, calls throw {@link StoreException}.
 * Pieces of one snapshot are written concurrently; commit and finish wait for the pieces in
 * progress and refuse later ones with {@link NotPendingException}.
 */
public final class RocksSnapshotStore implements SnapshotStore {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(RocksSnapshotStore.class);

  /**
   * Retention compacts a deleted snapshot's key range only when it held this much (recordings, and
   * states in numbered chunks).
   */
  static final long COMPACT_AFTER_RETENTION_BYTES = 1L << 20;

  /**
   * @param syncWrites whether commits, finishes, deletions and metadata are fsync'ed (turn off only
   *     in tests: a process crash loses nothing either way, a machine crash would)
   * @param idBlock snapshot ids reserved by one synced write of the high-water mark; at most this
   *     many ids are skipped after a restart
   * @param clock stamps the manifests that opening aborts
   */
  public record Options(boolean syncWrites, int idBlock, Clock clock) {
    public static final Options DEFAULT = new Options(true, 100, Clock.systemUTC());

    public Options {
      if (idBlock < 1) {
        throw new IllegalArgumentException("idBlock must be at least 1, got " + idBlock);
      }
    }

    public Options withSyncWrites(boolean sync) {
      return new Options(sync, idBlock, clock);
    }
  }

  /** Why the store was reopened after an I/O error, as the reason of what was pending. */
  static final String REOPENED = "the store was reopened after an I/O error";

  private final Path dir;
  private final Options options;
  private final Damage damage = new Damage();
  // Replaced only by resume(), under the write lock; every other use holds the read lock.
  private RocksHandles rocks;
  private StoreReader reader;
  private StoreWriter writer;
  private ClusterMetadata metadata;
  private ContentChunks content;

  /** The COMPLETE snapshots and their chunks, for the reference counts; under content.lock. */
  private CommittedContent committed;

  private int collectedOnOpen;

  /** Set while the database could not be reopened after an I/O error; rocks is then closed. */
  private String unopenable;

  private final List<Long> abortedOnOpen;
  private final ReentrantReadWriteLock guard = new ReentrantReadWriteLock();
  private final Object manifestWrites = new Object();
  private final TombstonePurge purge = new TombstonePurge();
  private final ConcurrentHashMap<Long, PieceLedger> pending = new ConcurrentHashMap<>();
  private boolean closed;

  private RocksSnapshotStore(RocksHandles rocks, Options options) {
    this.dir = rocks.dir;
    this.options = options;
    this.abortedOnOpen = attach(rocks, Recovery.REASON).abortedPending();
  }

  /** Uses freshly opened handles: recovery, then the metadata (which needs the highest id). */
  private Recovery.Result attach(RocksHandles opened, String reason) {
    int format = StoreFormat.check(opened);
    StoreReader newReader = new StoreReader(opened);
    Recovery.Result recovered = Recovery.run(opened, options.clock(), newReader, damage, reason);
    TableQuarantine.markDamaged(opened, newReader, damage);
    ClusterMetadata newMetadata =
        new ClusterMetadata(
            opened, recovered.maxId() + 1, options.idBlock(), damage, recovered.maxEpoch());
    this.rocks = opened;
    this.reader = newReader;
    this.writer = new StoreWriter(opened);
    this.metadata = newMetadata;
    this.content = new ContentChunks(opened);
    this.committed = new CommittedContent(newReader, content, damage);
    if (format < StoreFormat.CURRENT) {
      StoreFormat.upgrade(opened, content, committed.countAll(), committed.listedAll());
    } else if (opened.setAside.stream()
        .anyMatch(s -> s.family().equals(RocksHandles.CONTENT_REFS))) {
      int written = content.rebuild(committed.countAll(), committed.listedAll());
      log.warn(
          "snapshot store {}: a table file of content chunk references was set aside; {}"
              + " references counted again from the committed snapshots' metadata",
          opened.dir,
          written);
    }
    this.collectedOnOpen = content.collectGarbage();
    return recovered;
  }

  /** Opens (creating if needed) the store in {@code dir} with the default options. */
  public static RocksSnapshotStore open(Path dir) {
    return open(dir, Options.DEFAULT);
  }

  /**
   * Opens the store; deletes what PENDING snapshots of an earlier run left behind.
   *
   * @throws StoreException if the directory is in use by another process or cannot be opened
   */
  public static RocksSnapshotStore open(Path dir, Options options) {
    RocksHandles rocks = RocksHandles.open(dir.toAbsolutePath(), options.syncWrites());
    try {
      return new RocksSnapshotStore(rocks, options);
    } catch (RuntimeException e) {
      rocks.close();
      throw e;
    }
  }

  /** The snapshots that were PENDING when the store was opened and are now ABORTED. */
  public List<Long> abortedOnOpen() {
    return abortedOnOpen;
  }

  /**
   * Content chunks that opening deleted because no committed snapshot used them (what a crash left
   * of uploads whose snapshot never committed).
   */
  public int contentChunksCollectedOnOpen() {
    return collectedOnOpen;
  }

  /** The data directory. */
  public Path directory() {
    return dir;
  }

  @Override
  public long allocateSnapshotId() {
    return guarded("allocate snapshot id", metadata::allocateSnapshotId);
  }

  @Override
  public long epoch() {
    return guarded("read epoch", metadata::epoch);
  }

  @Override
  public void beginRollback(long newEpoch, long snapshotId) {
    run(
        "begin rollback",
        () -> {
          synchronized (manifestWrites) { // so that the target cannot be deleted meanwhile
            SnapshotManifest target = existing(snapshotId, "begin rollback");
            if (target.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
              throw new NotPendingException(
                  snapshotId, target.getStatus(), "roll back (needs COMPLETE)");
            }
            metadata.beginRollback(newEpoch, snapshotId);
          }
        });
  }

  @Override
  public Optional<RollbackIntent> rollbackInProgress() {
    return guarded("read rollback intent", metadata::rollback);
  }

  @Override
  public void finishRollback(long epoch) {
    run("finish rollback", () -> metadata.finishRollback(epoch));
  }

  @Override
  public void createPending(SnapshotManifest manifest) {
    long id = manifest.getSnapshotId();
    if (id < 1) {
      throw new IllegalArgumentException("snapshot ids start at 1, got " + id);
    }
    if (manifest.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
      throw new IllegalArgumentException(
          "createPending needs a PENDING manifest, got " + manifest.getStatus());
    }
    run(
        "create pending snapshot " + id,
        () -> {
          synchronized (manifestWrites) {
            Optional<SnapshotManifest> old = reader.manifest(id);
            if (old.isPresent()) {
              throw new NotPendingException(id, old.get().getStatus(), "create pending snapshot");
            }
            writer.putManifest(manifest, rocks.pieces, "create pending snapshot " + id);
            pending.put(id, new PieceLedger(id));
          }
        });
  }

  @Override
  public void putStateChunk(long snapshotId, String workerId, int index, byte[] data, int crc32c) {
    int actual = Crc32c.of(data);
    if (actual != crc32c) {
      throw new IllegalArgumentException(
          String.format(
              "%s: CRC32C mismatch on arrival (sent %08x, data gives %08x)",
              chunkName(snapshotId, workerId, index), crc32c, actual));
    }
    putCheckedStateChunk(snapshotId, workerId, index, data, crc32c);
  }

  /** Frames the chunk with a checksum derived from {@code crc32c}: its bytes are not read again. */
  @Override
  public void putCheckedStateChunk(
      long snapshotId, String workerId, int index, byte[] data, int crc32c) {
    String piece = chunkName(snapshotId, workerId, index);
    if (index < 0) {
      throw new IllegalArgumentException(piece + ": negative index");
    }
    byte[] key = Keys.stateChunk(snapshotId, workerId, index);
    writePiece(
        snapshotId,
        "store " + piece,
        rocks.stateChunks,
        key,
        ValueFrames.wrap(key, data, crc32c),
        p -> p.chunk(workerId, index, data.length, crc32c));
  }

  /**
   * Runs {@code step} where the store's content chunks check, under their lock, what they did
   * outside it (see {@link ContentChunks#meanwhile}); for tests.
   */
  void meanwhileOutsideContentLock(Runnable step) {
    content.meanwhile = step;
  }

  @Override
  public boolean[] holdChunks(long snapshotId, List<ByteString> sha256s) {
    String operation = "hold content chunks for snapshot " + snapshotId;
    for (ByteString hash : sha256s) {
      StoreParts.requireSha256(hash, operation);
    }
    return guarded(
        operation,
        () ->
            whilePending(
                snapshotId,
                operation,
                p ->
                    content.withRefs( // under its lock: no deletion decides on these meanwhile
                        sha256s,
                        refs -> {
                          boolean[] held = new boolean[sha256s.size()];
                          for (int i = 0; i < held.length; i++) {
                            ByteString hash = sha256s.get(i);
                            if (p.usesContent(hash)) {
                              held[i] = true;
                            } else if (refs[i] != null && !damage.chunkDamaged(hash)) {
                              p.hold(hash, refs[i].stored());
                              held[i] = true;
                            }
                          }
                          return held;
                        })));
  }

  @Override
  public void putContentChunk(
      long snapshotId, String workerId, int index, ByteString sha256, byte[] data, int crc32c) {
    String operation = StoreParts.storeContentChunk(snapshotId, workerId, index, sha256);
    StoreParts.requireSha256(sha256, operation);
    run(
        operation,
        () ->
            whilePending(
                snapshotId,
                operation,
                p -> {
                  boolean damaged = damage.chunkDamaged(sha256);
                  content.putBody(
                      sha256,
                      data,
                      crc32c,
                      damaged,
                      () -> p.contentChunk(sha256, new ContentChunks.Stored(data.length, crc32c)));
                  if (damaged) {
                    damage.chunkStored(sha256);
                  }
                  return null;
                }));
  }

  /** Whether a pending snapshot other than {@code except} uploaded or holds the chunk. */
  private boolean inUse(ByteString hash, PieceLedger except) {
    for (PieceLedger p : pending.values()) {
      if (p != except && p.usesContent(hash)) {
        return true;
      }
    }
    return false;
  }

  private static String chunkName(long snapshotId, String workerId, int index) {
    return "snapshot " + snapshotId + ", worker " + workerId + ", state chunk " + index;
  }

  @Override
  public void putChannelRecording(
      long snapshotId, ChannelId channel, List<InTransitMessage> messages) {
    if (messages.isEmpty()) {
      return; // an empty recording is the absence of batches
    }
    ChannelRecording batch = StoreParts.recordingBatch(snapshotId, channel, messages);
    byte[] key = Keys.channelBatch(snapshotId, channel, messages.get(0).seq());
    writePiece(
        snapshotId,
        "store recording of snapshot " + snapshotId + ", channel " + channel,
        rocks.channelStates,
        key,
        ValueFrames.wrap(key, batch.toByteArray()),
        p -> p.recording(channel, messages));
  }

  /** Syncs the write-ahead log: the pieces written so far are on disk (with sync on). */
  @Override
  public void syncPieces() {
    run(
        "sync the stored pieces",
        () -> {
          if (rocks.durable.sync()) {
            try {
              rocks.db.syncWal();
            } catch (RocksDBException e) {
              throw rocks.fail("sync the stored pieces", e);
            }
          }
        });
  }

  @Override
  public void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta) {
    if (meta.getWorkerId().isEmpty()) {
      throw new IllegalArgumentException("worker metadata without a worker id");
    }
    if (meta.getSnapshotId() != snapshotId && meta.getSnapshotId() != 0) {
      throw new IllegalArgumentException(
          "metadata of snapshot " + meta.getSnapshotId() + " stored under " + snapshotId);
    }
    LocalSnapshotMeta stored = meta.toBuilder().setSnapshotId(snapshotId).build();
    byte[] key = Keys.worker(snapshotId, meta.getWorkerId());
    writePiece(
        snapshotId,
        "store metadata of snapshot " + snapshotId + ", worker " + meta.getWorkerId(),
        rocks.workerMeta,
        key,
        ValueFrames.wrap(key, stored.toByteArray()),
        p -> p.meta(stored));
  }

  @Override
  public void discardPieces(long snapshotId, String workerId) {
    String operation = "discard pieces of snapshot " + snapshotId + ", worker " + workerId;
    run(
        operation,
        () -> {
          PieceLedger p = pendingOrThrow(snapshotId, operation);
          Lock lock = p.lock.writeLock();
          lock.lock();
          try {
            if (p.isClosed()) {
              throw notPending(snapshotId, operation);
            }
            writer.deleteWorker(snapshotId, workerId, operation);
            p.forget(workerId);
          } finally {
            lock.unlock();
          }
        });
  }

  @Override
  public void commit(SnapshotManifest complete) {
    if (complete.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      throw new IllegalArgumentException(
          "commit needs a COMPLETE manifest, got " + complete.getStatus());
    }
    long id = complete.getSnapshotId();
    run(
        "commit snapshot " + id,
        () ->
            closePending(
                id,
                "commit",
                p -> {
                  SnapshotManifest filled = p.completed(complete);
                  Map<ByteString, ContentChunks.Stored> chunks = p.referenced();
                  // held or uploaded, yet not in the state: an early question's chunks that did
                  // not come back, an attempt discarded before the one that went through
                  List<ByteString> unused =
                      p.contentInUse().stream().filter(h -> !chunks.containsKey(h)).toList();
                  synchronized (content.lock) {
                    writer.putManifest(
                        filled,
                        rocks.durable,
                        "commit snapshot " + id,
                        batch -> {
                          committed.commit(batch, id, chunks, p.uploadedContent());
                          content.dropUnreferenced(batch, unused, h -> inUse(h, p));
                        });
                    committed.committed(id, chunks.keySet());
                  }
                }));
  }

  @Override
  public void finish(SnapshotManifest abortedOrFailed) {
    SnapshotStatus status = abortedOrFailed.getStatus();
    if (status != SnapshotStatus.SNAPSHOT_STATUS_ABORTED
        && status != SnapshotStatus.SNAPSHOT_STATUS_FAILED) {
      throw new IllegalArgumentException(
          "finish needs an ABORTED or FAILED manifest, got " + status);
    }
    long id = abortedOrFailed.getSnapshotId();
    SnapshotManifest kept = abortedOrFailed.toBuilder().clearPieces().build();
    run(
        "finish snapshot " + id,
        () -> {
          synchronized (manifestWrites) {
            if (!pending.containsKey(id) && reader.manifest(id).isEmpty()) {
              // Never created: keep the manifest anyway so operators can see why it ended.
              writer.putManifest(kept, rocks.durable, "finish snapshot " + id);
              return;
            }
          }
          closePending(
              id,
              "finish",
              p -> {
                synchronized (content.lock) {
                  writer.deleteSnapshot(
                      id,
                      kept,
                      rocks.durable,
                      "finish snapshot " + id,
                      batch -> content.dropUnreferenced(batch, p.contentInUse(), h -> inUse(h, p)));
                }
              });
          writer.compactPieces(id);
        });
  }

  @Override
  public Optional<SnapshotManifest> manifest(long snapshotId) {
    return guarded(
        "read manifest",
        () -> {
          try {
            return readManifest(snapshotId).map(damage::mark);
          } catch (CorruptionException e) {
            damage.lostManifest(snapshotId, e.getMessage());
            throw e;
          }
        });
  }

  @Override
  public List<SnapshotManifest> list(Set<SnapshotStatus> statuses) {
    return guarded(
        "list snapshots", () -> reader.newestFirst(statuses, Integer.MAX_VALUE, true, damage));
  }

  @Override
  public Optional<SnapshotManifest> latestComplete() {
    return guarded(
        "find latest complete snapshot",
        () ->
            reader
                .newestFirst(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE), 1, false, damage)
                .stream()
                .findFirst());
  }

  @Override
  public Optional<LocalSnapshotMeta> workerMeta(long snapshotId, String workerId) {
    return guarded(
        "read worker metadata",
        () -> marking(snapshotId, () -> reader.workerMeta(snapshotId, workerId)));
  }

  @Override
  public int readState(long snapshotId, String workerId, Consumer<byte[]> sink) {
    return guarded(
        "read state",
        () ->
            marking(
                snapshotId,
                () -> {
                  existing(snapshotId, "read state");
                  return reader.readState(snapshotId, workerId, sink);
                }));
  }

  @Override
  public int readState(
      long snapshotId,
      String workerId,
      java.util.function.IntFunction<byte[]> arrays,
      StateChunks sink) {
    return guarded(
        "read state",
        () ->
            marking(
                snapshotId,
                () -> {
                  existing(snapshotId, "read state");
                  return reader.readState(snapshotId, workerId, arrays, sink);
                }));
  }

  @Override
  public List<InTransitMessage> readChannel(long snapshotId, ChannelId channel) {
    return guarded(
        "read channel",
        () ->
            marking(
                snapshotId,
                () -> {
                  boolean complete =
                      existing(snapshotId, "read channel").getStatus()
                          == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE;
                  return reader.readChannel(snapshotId, channel, complete);
                }));
  }

  @Override
  public java.util.SortedMap<ChannelId, List<InTransitMessage>> readChannels(
      long snapshotId, java.util.Collection<ChannelId> channels) {
    return guarded(
        "read channels",
        () ->
            marking(
                snapshotId,
                () -> {
                  // one manifest parse for all channels: at 32 workers a full mesh has 992 of them
                  boolean complete =
                      existing(snapshotId, "read channels").getStatus()
                          == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE;
                  java.util.SortedMap<ChannelId, List<InTransitMessage>> out =
                      new java.util.TreeMap<>();
                  for (ChannelId channel : channels) {
                    out.put(channel, reader.readChannel(snapshotId, channel, complete));
                  }
                  return out;
                }));
  }

  @Override
  public void verifyIntegrity(long snapshotId) {
    verifyIntegrity(snapshotId, Map.of());
  }

  @Override
  public void verifyIntegrity(long snapshotId, Map<String, HeldState> heldByWorkers) {
    run(
        "verify snapshot " + snapshotId,
        () ->
            marking(
                snapshotId,
                () -> {
                  new Verification(reader, rocks)
                      .verify(existing(snapshotId, "verify"), heldByWorkers);
                  return null;
                }));
  }

  @Override
  public SnapshotManifest setPinned(long snapshotId, boolean pinned) {
    return guarded(
        "pin snapshot " + snapshotId,
        () -> {
          synchronized (manifestWrites) {
            SnapshotManifest m = existing(snapshotId, "pin");
            if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
              throw new NotPendingException(
                  snapshotId, m.getStatus(), "pin (needs a finished one)");
            }
            SnapshotManifest updated = m.toBuilder().setPinned(pinned).build();
            writer.putManifest(updated, rocks.durable, "pin snapshot " + snapshotId);
            return updated;
          }
        });
  }

  @Override
  public boolean delete(long snapshotId) {
    return guarded(
        "delete snapshot " + snapshotId,
        () -> {
          synchronized (manifestWrites) {
            Optional<SnapshotManifest> m = reader.manifest(snapshotId);
            if (m.isEmpty()) {
              return false;
            }
            StoreParts.refuseDeletion(m.get(), metadata.rollback());
            deleteCommitted(snapshotId, rocks.durable, "delete snapshot " + snapshotId);
          }
          writer.compact(snapshotId, snapshotId);
          return true;
        });
  }

  /**
   * Deletes a snapshot that is not pending in one batch: its manifest, its pieces, and, if it is
   * COMPLETE, its part of the content chunks' references (a chunk no snapshot uses any more goes
   * too). Hold {@code manifestWrites}.
   */
  private void deleteCommitted(long id, WriteOptions write, String operation) {
    synchronized (content.lock) {
      writer.deleteSnapshot(
          id, null, write, operation, batch -> committed.delete(batch, id, h -> inUse(h, null)));
      committed.deleted(id);
    }
  }

  @Override
  public List<Long> applyRetention(int keepComplete) {
    return guarded(
        "apply retention",
        () -> {
          List<Long> deleted;
          Map<Long, SnapshotManifest> heads = new HashMap<>();
          Map<Long, Long> bytes = new HashMap<>();
          synchronized (manifestWrites) {
            List<RetentionPlan.Entry> entries = new ArrayList<>();
            for (SnapshotManifest m :
                reader.newestFirst(
                    Set.of(), Integer.MAX_VALUE, false, damage, StoreReader::parseManifestHead)) {
              entries.add(new RetentionPlan.Entry(m.getSnapshotId(), m.getStatus(), m.getPinned()));
              heads.put(m.getSnapshotId(), m);
            }
            Set<Long> protectedIds =
                metadata.rollback().map(r -> Set.of(r.snapshotId())).orElse(Set.of());
            deleted = RetentionPlan.toDelete(entries, keepComplete, protectedIds);
            // What the snapshot's own key range holds: its recordings, and its states unless they
            // are content chunks (kept by hash, outside the range, and deleted by the batch).
            for (long id : deleted) {
              SnapshotManifest head = heads.get(id);
              bytes.put(
                  id,
                  head.getTotalChannelBytes()
                      + (reader.hasNumberedChunks(id) ? head.getTotalStateBytes() : 0));
            }
            // Not synced under the lock: trigger (createPending) and commit wait for this lock, and
            // would wait for the fsync too. Each batch is atomic; the WAL sync below makes them
            // durable before this returns, as a synced write would.
            for (long id : deleted) {
              deleteCommitted(id, rocks.pieces, "retention: delete snapshot " + id);
            }
          }
          if (!deleted.isEmpty() && rocks.durable.sync()) {
            try {
              rocks.db.syncWal();
            } catch (RocksDBException e) {
              throw rocks.fail("retention: sync the deletions", e);
            }
          }
          List<Long> small = new ArrayList<>();
          for (long id : deleted) {
            // A forced compaction flushes the memtable (an SST write and its fsyncs) and runs after
            // every commit: worth it at once for large pieces; small ones are compacted together,
            // once enough tombstones have gathered to slow the reads (TombstonePurge).
            if (bytes.getOrDefault(id, 0L) >= COMPACT_AFTER_RETENTION_BYTES) {
              writer.compact(id, id);
            } else {
              small.add(id);
            }
          }
          purge.deleted(small).forEach(r -> writer.compact(r.first(), r.last()));
          return deleted;
        });
  }

  /** RocksDB's estimate of the keys of {@code content_chunks}. */
  @Override
  public long contentChunks() {
    return guarded(
        "count content chunks",
        () -> {
          try {
            return rocks.db.getLongProperty(rocks.contentChunks, "rocksdb.estimate-num-keys");
          } catch (RocksDBException e) {
            throw rocks.fail("count content chunks", e);
          }
        });
  }

  @Override
  public long sizeBytes() {
    return guarded(
        "measure size",
        () -> {
          try {
            return rocks.sizeBytes();
          } catch (RocksDBException e) {
            throw rocks.fail("measure size", e);
          }
        });
  }

  @Override
  public void close() {
    Lock lock = guard.writeLock();
    lock.lock();
    try {
      if (!closed) {
        closed = true;
        pending.clear();
        if (unopenable == null) {
          rocks.close();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Snapshots known to be damaged since the store was opened, by id, with what is damaged. */
  @Override
  public java.util.SortedMap<Long, String> damaged() {
    return damage.snapshots();
  }

  /**
   * The table files that could not be read and were set aside (on this open or an earlier one), or
   * could not be set aside; one line each.
   */
  public List<String> setAsideFiles() {
    return guarded(
        "list table files set aside",
        () -> rocks.setAside.stream().map(s -> s.describe(dir)).toList());
  }

  /**
   * Content chunk reference counts that cannot be read, one line each (at most 20, then how many
   * more): reads all of them. Retention stops at a snapshot whose deletion must change one.
   */
  public List<String> referenceDamage() {
    return guarded("check content chunk references", () -> content.unreadableRefs(20));
  }

  /** What opening found lost from the catalog (unreadable manifests, store metadata). */
  public List<String> catalogDamage() {
    return damage.catalog();
  }

  @Override
  public Optional<String> unavailable() {
    Lock lock = guard.readLock();
    lock.lock();
    try {
      return closed
          ? Optional.of("closed")
          : unopenable != null ? Optional.of(unopenable) : Optional.ofNullable(rocks.ioError());
    } finally {
      lock.unlock();
    }
  }

  /**
   * After an I/O error (a full disk): checks with a small synced write whether the database takes
   * writes again, and if RocksDB still refuses them (it keeps a background error until resumed;
   * RocksJava offers no {@code DB::Resume}), reopens the database, which clears that error and
   * replays the WAL. Snapshots that were pending become ABORTED ({@value #REOPENED}).
   *
   * @return true if the store takes writes now
   */
  @Override
  public boolean resume() {
    Lock lock = guard.writeLock();
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      if (unopenable == null) {
        if (rocks.ioError() == null) {
          return true;
        }
        if (rocks.probeWrite()) {
          rocks.clearIoError();
          log.info("snapshot store {} takes writes again", dir);
          return true;
        }
        pending.clear();
        rocks.close();
      }
      try {
        RocksHandles opened = RocksHandles.open(dir, options.syncWrites());
        try {
          attach(opened, REOPENED);
        } catch (RuntimeException e) {
          opened.close();
          throw e;
        }
        pending.clear();
        unopenable = null;
        if (!rocks.probeWrite()) {
          return false;
        }
        rocks.clearIoError();
        log.info("snapshot store {} reopened after an I/O error and takes writes again", dir);
        return true;
      } catch (StoreException e) {
        unopenable = e.getMessage();
        return false;
      }
    } finally {
      lock.unlock();
    }
  }

  // ---- internals ----

  /** Runs a read of one snapshot; a piece that fails its checks marks the snapshot damaged. */
  /**
   * Runs {@code read} of a snapshot and marks the snapshot damaged if what it reads is; unless the
   * snapshot was deleted while it read (retention, an operator): then what is missing is gone with
   * it, and the read says so ({@link NoSuchSnapshotException}).
   */
  private <T> T marking(long snapshotId, Supplier<T> read) {
    try {
      return read.get();
    } catch (CorruptionException e) {
      if (deletedMeanwhile(snapshotId)) {
        throw new NoSuchSnapshotException(snapshotId, "read snapshot (deleted while it was read)");
      }
      damage.snapshot(snapshotId, e);
      throw e;
    }
  }

  private boolean deletedMeanwhile(long snapshotId) {
    try {
      return readManifest(snapshotId).isEmpty();
    } catch (CorruptionException e) {
      return false;
    }
  }

  private interface PendingAction {
    void apply(PieceLedger p);
  }

  private void writePiece(
      long id,
      String operation,
      ColumnFamilyHandle family,
      byte[] key,
      byte[] framed,
      PendingAction record) {
    run(
        operation,
        () ->
            whilePending(
                id,
                operation,
                p -> {
                  try {
                    rocks.db.put(family, rocks.pieces, key, framed);
                  } catch (RocksDBException e) {
                    throw rocks.fail(operation, e);
                  }
                  record.apply(p);
                  return null;
                }));
  }

  /**
   * Runs {@code body} with snapshot {@code id}'s read lock, while it is pending: pieces of one
   * snapshot are written at once, and its commit, finish or discard waits for them.
   *
   * @throws NotPendingException if it is no longer pending ({@link NoSuchSnapshotException} if it
   *     never was)
   */
  private <T> T whilePending(
      long id, String operation, java.util.function.Function<PieceLedger, T> body) {
    PieceLedger p = pendingOrThrow(id, operation);
    Lock lock = p.lock.readLock();
    lock.lock();
    try {
      if (p.isClosed()) {
        throw notPending(id, operation);
      }
      return body.apply(p);
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code end} with the snapshot's write lock, then forgets the snapshot as pending. */
  private void closePending(long id, String operation, PendingAction end) {
    PieceLedger p = pendingOrThrow(id, operation);
    Lock lock = p.lock.writeLock();
    lock.lock();
    try {
      if (p.isClosed()) {
        throw notPending(id, operation);
      }
      synchronized (manifestWrites) {
        end.apply(p);
        // before retention, which waits for this lock, asks who else uses a chunk: this
        // snapshot's holds and uploads end with the batch just written
        p.close();
        pending.remove(id, p);
      }
    } finally {
      lock.unlock();
    }
  }

  private PieceLedger pendingOrThrow(long id, String operation) {
    PieceLedger p = pending.get(id);
    if (p == null) {
      throw notPending(id, operation);
    }
    return p;
  }

  private StoreException notPending(long id, String operation) {
    Optional<SnapshotManifest> m = reader.manifest(id);
    return m.isEmpty()
        ? new NoSuchSnapshotException(id, operation)
        : new NotPendingException(id, m.get().getStatus(), operation);
  }

  private SnapshotManifest existing(long id, String operation) {
    return readManifest(id).orElseThrow(() -> new NoSuchSnapshotException(id, operation));
  }

  /** The manifest; one known lost (its snapshot has pieces) fails as the damage it is. */
  private Optional<SnapshotManifest> readManifest(long id) {
    Optional<SnapshotManifest> m = reader.manifest(id);
    String lost = damage.lostManifests().get(id);
    if (m.isEmpty() && lost != null) {
      throw new CorruptionException("snapshot " + id + ", manifest: " + lost);
    }
    return m;
  }

  private void run(String operation, Runnable body) {
    guarded(
        operation,
        () -> {
          body.run();
          return null;
        });
  }

  private <T> T guarded(String operation, Supplier<T> body) {
    Lock lock = guard.readLock();
    lock.lock();
    try {
      if (closed) {
        throw new StoreException("snapshot store " + dir + " is closed: cannot " + operation);
      }
      if (unopenable != null) {
        throw new StoreException(
            "snapshot store " + dir + " is unavailable: cannot " + operation + ": " + unopenable);
      }
      return body.get();
    } finally {
      lock.unlock();
    }
  }
}
