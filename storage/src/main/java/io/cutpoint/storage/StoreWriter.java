package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotManifest;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/** Manifest writes and deletions; every write is one batch. The caller holds the locks. */
final class StoreWriter {
  private final RocksHandles rocks;

  StoreWriter(RocksHandles rocks) {
    this.rocks = rocks;
  }

  /** One synced batch: the manifest replaced by {@code keep} (or removed), every piece gone. */
  void deleteSnapshot(long id, SnapshotManifest keep, String operation) {
    deleteSnapshot(id, keep, rocks.durable, operation);
  }

  /** As {@link #deleteSnapshot(long, SnapshotManifest, String)}, written with {@code write}. */
  void deleteSnapshot(long id, SnapshotManifest keep, WriteOptions write, String operation) {
    deleteSnapshot(id, keep, write, operation, batch -> {});
  }

  /** More writes that go into the same batch (the references of content chunks). */
  interface Also {
    void add(WriteBatch batch) throws RocksDBException;
  }

  /** As above, with {@code also} in the same batch. */
  void deleteSnapshot(
      long id, SnapshotManifest keep, WriteOptions write, String operation, Also also) {
    byte[] key = Keys.snapshot(id);
    try (WriteBatch batch = new WriteBatch()) {
      if (keep == null) {
        batch.delete(rocks.manifests, key);
      } else {
        batch.put(rocks.manifests, key, ValueFrames.wrap(key, keep.toByteArray()));
      }
      for (ColumnFamilyHandle family : rocks.pieceFamilies()) {
        batch.deleteRange(family, key, Keys.snapshotEnd(id));
      }
      also.add(batch);
      rocks.db.write(write, batch);
    } catch (RocksDBException e) {
      throw rocks.fail(operation, e);
    }
  }

  /**
   * Reclaims the space of deleted snapshots {@code first..last} and drops their tombstones: a
   * compaction of that key range in the manifests and every piece family (it flushes their
   * memtables first). Snapshots still stored in the range are rewritten, not lost.
   */
  void compact(long first, long last) {
    compact(rocks.snapshotFamilies(), first, last);
  }

  /** Reclaims the space of an ended snapshot's pieces; its manifest stays, so it is left alone. */
  void compactPieces(long id) {
    compact(rocks.pieceFamilies(), id, id);
  }

  private void compact(List<ColumnFamilyHandle> families, long first, long last) {
    try {
      for (ColumnFamilyHandle family : families) {
        rocks.db.compactRange(
            family, Keys.snapshot(first), Keys.snapshotEnd(last), rocks.compaction);
      }
    } catch (RocksDBException e) {
      throw rocks.fail("compact the range of snapshots " + first + ".." + last, e);
    }
  }

  void putManifest(SnapshotManifest m, WriteOptions write, String operation) {
    putManifest(m, write, operation, batch -> {});
  }

  void putManifest(SnapshotManifest m, WriteOptions write, String operation, Also also) {
    byte[] key = Keys.snapshot(m.getSnapshotId());
    try (WriteBatch batch = new WriteBatch()) {
      batch.put(rocks.manifests, key, ValueFrames.wrap(key, m.toByteArray()));
      also.add(batch);
      rocks.db.write(write, batch);
    } catch (RocksDBException e) {
      throw rocks.fail(operation, e);
    }
  }

  /** Deletes one worker's chunks, metadata and incoming recordings (not synced: pending). */
  void deleteWorker(long id, String workerId, String operation) {
    byte[] prefix = Keys.worker(id, workerId);
    try (WriteBatch batch = new WriteBatch()) {
      batch.deleteRange(rocks.stateChunks, prefix, Keys.prefixEnd(prefix));
      batch.delete(rocks.workerMeta, prefix);
      batch.deleteRange(rocks.channelStates, prefix, Keys.prefixEnd(prefix));
      rocks.db.write(rocks.pieces, batch);
    } catch (RocksDBException e) {
      throw rocks.fail(operation, e);
    }
  }
}
