package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What opening the store does after a crash or a plain stop. A PENDING snapshot cannot be finished
 * by a coordinator that restarted, so its manifest becomes ABORTED with the reason {@value #REASON}
 * and its pieces are deleted; pieces whose snapshot is not COMPLETE (or has no manifest) are
 * deleted too. All of it in one synced write batch, then the freed ranges are compacted.
 *
 * <p>Damage does not stop it: the scans step over blocks that fail their checksums ({@link
 * IdWalk}). A snapshot whose manifest or pieces cannot be read is left as it is and recorded in
 * {@link Damage}; pieces are deleted only where the manifest of their snapshot was read.
 */
final class Recovery {
  static final String REASON = "coordinator restarted";
  private static final Logger log = LoggerFactory.getLogger(Recovery.class);

  /** What recovery found: the snapshots it aborted and the highest id in any manifest. */
  record Result(List<Long> abortedPending, List<Long> cleanedIds, long maxId, long maxEpoch) {}

  private Recovery() {}

  static Result run(RocksHandles rocks, Clock clock, StoreReader reader, Damage damage) {
    return run(rocks, clock, reader, damage, REASON);
  }

  static Result run(
      RocksHandles rocks, Clock clock, StoreReader reader, Damage damage, String reason) {
    List<SnapshotManifest> aborted = new ArrayList<>();
    Map<Long, SnapshotStatus> manifests = new TreeMap<>();
    long[] maxId = {0};
    long[] maxEpoch = {0};
    // Manifests in a table file set aside are gone, or an older version of them is back.
    List<IdWalk.Gap> setAside =
        rocks.setAside.stream()
            .filter(s -> s.family().equals(RocksHandles.MANIFESTS))
            .map(s -> new IdWalk.Gap(s.firstId(), s.lastId(), s.describe(rocks.dir)))
            .toList();
    List<IdWalk.Gap> manifestGaps =
        new ArrayList<>(
            new IdWalk(rocks, rocks.manifests)
                .walk(
                    id -> {
                      maxId[0] = Math.max(maxId[0], id);
                      SnapshotManifest m;
                      try {
                        m = reader.manifest(id).orElse(null);
                      } catch (CorruptionException e) {
                        // Keep it and its pieces: an operator decides; reads of it keep failing
                        // loudly.
                        log.error("Leaving snapshot {} as it is: {}", id, e.getMessage());
                        damage.lostManifest(id, e.getMessage());
                        manifests.put(id, SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED);
                        return;
                      }
                      if (m == null) {
                        return;
                      }
                      manifests.put(id, m.getStatus());
                      maxEpoch[0] = Math.max(maxEpoch[0], m.getEpoch());
                      boolean outOfDate = setAside.stream().anyMatch(g -> g.contains(id));
                      if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING && outOfDate) {
                        // It may have been committed in the file set aside: keep it and its pieces.
                        log.error(
                            "Leaving snapshot {} as it is: its manifest reads PENDING, and a newer one may"
                                + " have been in a table file set aside",
                            id);
                        damage.snapshot(
                            id,
                            "its manifest reads PENDING and may be out of date: "
                                + setAside.stream()
                                    .filter(g -> g.contains(id))
                                    .findFirst()
                                    .orElseThrow()
                                    .error());
                        manifests.put(id, SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED);
                      } else if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
                        aborted.add(
                            m.toBuilder()
                                .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
                                .setReason(reason)
                                .setFinishedAtUnixMs(clock.millis())
                                .clearPieces()
                                .build());
                      }
                    }));
    manifestGaps.addAll(setAside);
    TreeSet<Long> withPieces = new TreeSet<>();
    for (ColumnFamilyHandle family : rocks.pieceFamilies()) {
      List<IdWalk.Gap> gaps = new IdWalk(rocks, family).walk(withPieces::add);
      for (IdWalk.Gap gap : gaps) {
        checkSnapshotsAround(gap, family, manifests, reader, damage);
      }
    }
    for (IdWalk.Gap gap : manifestGaps) {
      List<Long> lost =
          withPieces.stream().filter(id -> gap.contains(id) && !manifests.containsKey(id)).toList();
      String what =
          "manifests of snapshot "
              + gap
              + " cannot be read ("
              + gap.error()
              + ")"
              + (lost.isEmpty()
                  ? "; no snapshot with pieces is among them"
                  : "; snapshots " + lost + " have pieces but no readable manifest")
              + "; ABORTED or FAILED manifests in that range are lost";
      log.error("Store {}: {}", rocks.dir, what);
      damage.catalog(what);
      lost.forEach(
          id ->
              damage.lostManifest(id, "its manifest is in a damaged block (" + gap.error() + ")"));
    }
    TreeSet<Long> orphans = new TreeSet<>();
    for (long id : withPieces) {
      SnapshotStatus status = manifests.get(id);
      boolean inGap = manifestGaps.stream().anyMatch(g -> g.contains(id));
      if (!inGap
          && status != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE
          && status != SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED) {
        orphans.add(id);
      }
    }
    try (WriteBatch batch = new WriteBatch()) {
      for (SnapshotManifest m : aborted) {
        byte[] key = Keys.snapshot(m.getSnapshotId());
        batch.put(rocks.manifests, key, ValueFrames.wrap(key, m.toByteArray()));
      }
      for (long id : orphans) {
        for (ColumnFamilyHandle family : rocks.pieceFamilies()) {
          batch.deleteRange(family, Keys.snapshot(id), Keys.snapshotEnd(id));
        }
      }
      if (batch.count() > 0) {
        rocks.db.write(rocks.durable, batch);
      }
    } catch (RocksDBException e) {
      throw rocks.fail("recovery: abort pending snapshots", e);
    }
    for (long id : orphans) {
      compact(rocks, id);
    }
    List<Long> abortedIds = aborted.stream().map(SnapshotManifest::getSnapshotId).toList();
    if (!abortedIds.isEmpty() || !orphans.isEmpty()) {
      log.warn(
          "Store {} opened after an unfinished run: aborted pending snapshots {}, deleted pieces"
              + " of {}",
          rocks.dir,
          abortedIds,
          orphans);
    }
    if (!withPieces.isEmpty()) {
      maxId[0] = Math.max(maxId[0], withPieces.last());
    }
    for (IdWalk.Gap gap : manifestGaps) {
      if (gap.last() != Long.MAX_VALUE) {
        maxId[0] = Math.max(maxId[0], gap.last());
      }
    }
    return new Result(abortedIds, List.copyOf(orphans), maxId[0], maxEpoch[0]);
  }

  /**
   * A damaged block in {@code family} covers the ids of {@code gap}, and perhaps the last keys of
   * the snapshot just before it: reads each such snapshot's key range in that family and marks
   * those that fail.
   */
  private static void checkSnapshotsAround(
      IdWalk.Gap gap,
      ColumnFamilyHandle family,
      Map<Long, SnapshotStatus> manifests,
      StoreReader reader,
      Damage damage) {
    Set<Long> candidates = new TreeSet<>();
    manifests.keySet().stream()
        .filter(id -> gap.contains(id) || id == gap.first() - 1)
        .forEach(candidates::add);
    for (long id : candidates) {
      try {
        reader.checkAll(family, id, reader.kindOf(family));
      } catch (CorruptionException e) {
        log.error("Snapshot {} is damaged: {}", id, e.getMessage());
        damage.snapshot(id, e.getMessage());
      }
    }
  }

  /** Reclaims a deleted range; a damaged block in it only delays that, so it is not an error. */
  private static void compact(RocksHandles rocks, long id) {
    for (ColumnFamilyHandle family : rocks.pieceFamilies()) {
      try {
        rocks.db.compactRange(family, Keys.snapshot(id), Keys.snapshotEnd(id), rocks.compaction);
      } catch (RocksDBException e) {
        log.warn(
            "Store {}: compacting the deleted pieces of snapshot {} failed: {}",
            rocks.dir,
            id,
            e.getMessage());
      }
    }
  }
}
