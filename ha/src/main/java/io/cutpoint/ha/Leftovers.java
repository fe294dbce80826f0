package io.cutpoint.ha;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.storage.CorruptionException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What an earlier leader left behind: PENDING snapshots, which no one can complete any more (the
 * workers' uploads and the record of what arrived are gone), and the objects of snapshots that
 * never committed. Opening the store aborts the first and removes the second; retention removes the
 * second again (a fenced leader may have written pieces after the open).
 */
final class Leftovers {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Leftovers.class);

  /** The reason of the snapshots that opening finds PENDING (as in the RocksDB store). */
  static final String RESTARTED = "coordinator restarted";

  private final Catalog catalog;
  private final Bucket bucket;
  private final ObjectKeys keys;
  private final Map<Long, String> damaged;
  private final String name;

  /**
   * @param damaged the store's map of damaged snapshots: a manifest found unreadable is added, and
   *     the objects of a damaged snapshot are never removed
   */
  Leftovers(
      Catalog catalog, Bucket bucket, ObjectKeys keys, Map<Long, String> damaged, String name) {
    this.catalog = catalog;
    this.bucket = bucket;
    this.keys = keys;
    this.damaged = damaged;
    this.name = name;
  }

  /**
   * Turns every PENDING manifest into ABORTED ({@value #RESTARTED}), one fenced catalog write each,
   * stamped with {@code clock}.
   *
   * @return the ids aborted
   */
  List<Long> abortPending(List<Long> ids, Clock clock) {
    List<Long> aborted = new ArrayList<>();
    for (long id : ids) {
      try {
        Optional<Catalog.Versioned<SnapshotManifest>> m = catalog.manifest(id);
        if (m.isPresent()
            && m.get().value().getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
          SnapshotManifest abortedManifest =
              m.get().value().toBuilder()
                  .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
                  .setReason(RESTARTED)
                  .clearPieces()
                  .setFinishedAtUnixMs(clock.millis())
                  .build();
          catalog.write(
              "abort pending snapshot " + id + " on open",
              List.of(catalog.setManifest(abortedManifest, m.get().version())));
          aborted.add(id);
        }
      } catch (CorruptionException e) {
        damaged.putIfAbsent(id, "manifest unreadable: " + e.getMessage());
        log.error(
            "Snapshot {} has a damaged manifest in the catalog; its objects are kept: {}",
            id,
            e.getMessage());
      }
    }
    if (!aborted.isEmpty()) {
      log.warn(
          "{}: snapshots {} were pending under an earlier leader and are now ABORTED ({})",
          name,
          aborted,
          RESTARTED);
    }
    return List.copyOf(aborted);
  }

  /**
   * Removes the objects of every snapshot up to {@code maxId} that has no catalog entry or is not
   * COMPLETE, except {@code keep} (pending in this store) and damaged ones.
   *
   * @return the ids whose objects were removed
   */
  List<Long> sweep(Set<Long> keep, long maxId) {
    List<Long> removed = new ArrayList<>();
    for (String dir : bucket.dirs(keys.snapshotsRoot())) {
      long id = keys.idOf(dir);
      if (id < 0 || id > maxId || keep.contains(id) || damaged.containsKey(id)) {
        continue;
      }
      Optional<SnapshotManifest> m;
      try {
        m = catalog.manifest(id).map(Catalog.Versioned::value);
      } catch (CorruptionException e) {
        damaged.putIfAbsent(id, "manifest unreadable: " + e.getMessage());
        continue;
      }
      if (m.isPresent() && m.get().getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
        continue; // pending in this store (created after keep was taken) or in a newer leader's
      }
      if (m.isEmpty() || m.get().getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
        int n = bucket.deleteAll(dir, "remove objects of uncommitted snapshot " + id);
        log.info("{}: removed {} objects of snapshot {}, which did not commit", name, n, id);
        removed.add(id);
      }
    }
    return List.copyOf(removed);
  }
}
