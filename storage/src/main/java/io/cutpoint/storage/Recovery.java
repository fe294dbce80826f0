package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What opening the store does after a crash or a plain stop. A PENDING snapshot cannot be
 * finished by a coordinator that restarted, so its manifest becomes ABORTED with the reason
 * {@value #REASON} and its pieces are deleted; pieces whose snapshot is not COMPLETE (or has no
 * manifest) are deleted too. All of it in one synced write batch, then the freed ranges are
 * compacted.
 */
final class Recovery {
  static final String REASON = "coordinator restarted";
  private static final Logger log = LoggerFactory.getLogger(Recovery.class);

  /** What recovery found: the snapshots it aborted and the highest id in any manifest. */
  record Result(List<Long> abortedPending, List<Long> cleanedIds, long maxId) {}

  private Recovery() {}

  static Result run(RocksHandles rocks, Clock clock) {
    List<SnapshotManifest> aborted = new ArrayList<>();
    Set<Long> complete = new HashSet<>();
    long maxId = 0;
    try (ReadOptions options = new ReadOptions();
        RocksIterator it = rocks.db.newIterator(rocks.manifests, options)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        long id = Keys.snapshotIdOf(it.key());
        maxId = Math.max(maxId, id);
        SnapshotManifest m;
        try {
          m = StoreReader.parseManifest(it.key(), it.value());
        } catch (CorruptionException e) {
          // Keep it and its pieces: an operator decides; reads of it keep failing loudly.
          log.error("Leaving snapshot {} as it is: {}", id, e.getMessage());
          complete.add(id);
          continue;
        }
        if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
          complete.add(id);
        } else if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
          aborted.add(
              m.toBuilder()
                  .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
                  .setReason(REASON)
                  .setFinishedAtUnixMs(clock.millis())
                  .clearPieces()
                  .build());
        }
      }
      it.status();
    } catch (RocksDBException e) {
      throw rocks.fail("recovery: scan manifests", e);
    }
    TreeSet<Long> orphans = new TreeSet<>();
    for (ColumnFamilyHandle family : rocks.pieceFamilies()) {
      orphans.addAll(snapshotsWithPieces(rocks, family));
    }
    orphans.removeAll(complete);
    try (WriteBatch batch = new WriteBatch()) {
      for (SnapshotManifest m : aborted) {
        byte[] key = Keys.snapshot(m.getSnapshotId());
        batch.put(rocks.manifests, key, Frames.wrap(key, m.toByteArray()));
      }
      for (long id : orphans) {
        for (ColumnFamilyHandle family : rocks.pieceFamilies()) {
          batch.deleteRange(family, Keys.snapshot(id), Keys.snapshotEnd(id));
        }
      }
      if (batch.count() > 0) {
        rocks.db.write(rocks.durable, batch);
      }
      for (long id : orphans) {
        for (ColumnFamilyHandle family : rocks.pieceFamilies()) {
          rocks.db.compactRange(family, Keys.snapshot(id), Keys.snapshotEnd(id), rocks.compaction);
        }
      }
    } catch (RocksDBException e) {
      throw rocks.fail("recovery: abort pending snapshots", e);
    }
    List<Long> abortedIds = aborted.stream().map(SnapshotManifest::getSnapshotId).toList();
    if (!abortedIds.isEmpty() || !orphans.isEmpty()) {
      log.warn(
          "Store {} opened after an unfinished run: aborted pending snapshots {}, deleted pieces"
              + " of {}",
          rocks.dir, abortedIds, orphans);
    }
    for (long id : orphans) {
      maxId = Math.max(maxId, id);
    }
    return new Result(abortedIds, List.copyOf(orphans), maxId);
  }

  /** The snapshot ids that have keys in {@code family}: one seek per snapshot, not per key. */
  private static Set<Long> snapshotsWithPieces(RocksHandles rocks, ColumnFamilyHandle family) {
    Set<Long> ids = new TreeSet<>();
    try (ReadOptions options = new ReadOptions().setFillCache(false);
        RocksIterator it = rocks.db.newIterator(family, options)) {
      it.seekToFirst();
      while (it.isValid()) {
        long id = Keys.snapshotIdOf(it.key());
        ids.add(id);
        if (id == Long.MAX_VALUE) {
          break;
        }
        it.seek(Keys.snapshotEnd(id));
      }
      it.status();
    } catch (RocksDBException e) {
      throw rocks.fail("recovery: scan pieces", e);
    }
    return ids;
  }
}
