package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;

/**
 * The offline store commands: {@link #check} opens a store and verifies every snapshot; {@link
 * #repair} rebuilds the database from every value that still reads, then checks it. The coordinator
 * must be stopped (the store's directory lock enforces it).
 *
 * <p>RocksJava offers no {@code RepairDB}, so the repair is a salvage copy: it opens the damaged
 * database (paranoid checks off: files that fail their checks do not stop it), copies every entry
 * of every column family that reads, stepping over damaged blocks ({@link IdWalk}), into a new
 * database, and swaps the directories. The content chunks' reference counts are then counted again
 * from the snapshots' metadata, by the first open of the repaired store. The damaged directory is
 * kept next to it, renamed {@code <dir>.damaged-<time>}, until the operator deletes it.
 */
public final class StoreRepair {

  /** What a check or repair found: one line per finding, and whether any damage is left. */
  public record Report(List<String> lines, boolean damaged) {}

  private StoreRepair() {}

  /** Opens the store (as the coordinator would) and verifies every snapshot. */
  public static Report check(Path dir) {
    if (!Files.exists(dir.resolve("CURRENT"))) {
      throw new StoreException("no snapshot store in " + dir);
    }
    List<String> lines = new ArrayList<>();
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir)) {
      for (String file : store.setAsideFiles()) {
        lines.add("set aside: " + file);
      }
      for (String lost : store.catalogDamage()) {
        lines.add("catalog: " + lost);
      }
      List<String> references = store.referenceDamage();
      for (String bad : references) {
        lines.add("content chunk references: " + bad);
      }
      int verified = 0;
      List<SnapshotManifest> all = store.list(Set.of());
      for (SnapshotManifest m : all) {
        if (!m.getDamage().isEmpty() && m.getStatus().getNumber() == 0) {
          continue; // no readable manifest: listed below with the damage
        }
        try {
          store.verifyIntegrity(m.getSnapshotId());
          verified++;
        } catch (CorruptionException e) {
          // recorded in damaged()
        }
      }
      for (Map.Entry<Long, String> d : store.damaged().entrySet()) {
        lines.add("snapshot " + d.getKey() + ": DAMAGED: " + d.getValue());
      }
      lines.add(
          all.size()
              + " snapshots, "
              + verified
              + " verified, "
              + store.damaged().size()
              + " damaged"
              + (store.catalogDamage().isEmpty()
                  ? ""
                  : ", " + store.catalogDamage().size() + " catalog losses")
              + (references.isEmpty() ? "" : ", damaged content chunk references"));
      return new Report(
          lines,
          !store.damaged().isEmpty() || !store.catalogDamage().isEmpty() || !references.isEmpty());
    }
  }

  /**
   * Copies every readable value into a new database, swaps it in, and checks the result.
   *
   * @return the findings of the copy, then those of the check of the repaired store
   */
  public static Report repair(Path dir, Clock clock) {
    if (!Files.exists(dir.resolve("CURRENT"))) {
      throw new StoreException("no snapshot store in " + dir.toAbsolutePath());
    }
    // The copy goes next to the directory itself: not inside it for "." or "data/.", and next to
    // what a symbolic link points at.
    Path absolute;
    try {
      absolute = dir.toRealPath();
    } catch (java.io.IOException e) {
      throw new StoreException("cannot resolve " + dir.toAbsolutePath() + ": " + e, e);
    }
    if (absolute.getParent() == null) {
      throw new StoreException("cannot repair a store at the root of a file system: " + absolute);
    }
    String stamp =
        DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .format(clock.instant().atZone(java.time.ZoneOffset.UTC));
    Path fresh = absolute.resolveSibling(absolute.getFileName() + ".repairing-" + stamp);
    Path kept = absolute.resolveSibling(absolute.getFileName() + ".damaged-" + stamp);
    List<String> lines = new ArrayList<>();
    long copied = 0;
    try (RocksHandles from = RocksHandles.open(absolute, true);
        RocksHandles to = RocksHandles.open(fresh, true)) {
      copied += copy(from, to, from.manifests, to.manifests, RocksHandles.MANIFESTS, lines);
      copied += copy(from, to, from.stateChunks, to.stateChunks, RocksHandles.STATE_CHUNKS, lines);
      copied +=
          copy(from, to, from.channelStates, to.channelStates, RocksHandles.CHANNEL_STATES, lines);
      copied += copy(from, to, from.workerMeta, to.workerMeta, RocksHandles.WORKER_META, lines);
      copied +=
          copy(from, to, from.contentChunks, to.contentChunks, RocksHandles.CONTENT_CHUNKS, lines);
      copied += copy(from, to, from.contentRefs, to.contentRefs, RocksHandles.CONTENT_REFS, lines);
      // Not the format version: the copy may have lost references in a damaged block, and the
      // collection of the repaired store's first open would delete the bodies of committed
      // chunks that they counted. Without a version, that open counts every reference again from
      // the committed snapshots' metadata first (StoreFormat.upgrade).
      for (String name :
          List.of(
              ClusterMetadata.EPOCH,
              ClusterMetadata.ID_HIGH_WATER,
              ClusterMetadata.ROLLBACK_INTENT)) {
        try {
          byte[] value = from.db.get(from.metadata, Keys.metadata(name));
          if (value != null) {
            to.db.put(to.metadata, to.durable, Keys.metadata(name), value);
            copied++;
          }
        } catch (RocksDBException e) {
          lines.add("metadata '" + name + "': unreadable, dropped (" + e.getMessage() + ")");
        }
      }
      to.db.syncWal();
    } catch (RocksDBException e) {
      throw RocksHandles.fail(fresh, "repair: write the copy", e);
    }
    try {
      Files.move(absolute, kept);
      Files.move(fresh, absolute);
    } catch (IOException e) {
      throw new StoreException(
          "repair: swapping "
              + fresh
              + " in for "
              + absolute
              + " failed: "
              + e
              + " (the copy is in "
              + fresh
              + ")",
          e);
    }
    lines.add("copied " + copied + " values; the damaged store is kept in " + kept);
    Report checked = check(absolute);
    lines.addAll(checked.lines());
    return new Report(lines, checked.damaged());
  }

  private static long copy(
      RocksHandles from,
      RocksHandles to,
      ColumnFamilyHandle source,
      ColumnFamilyHandle target,
      String name,
      List<String> lines) {
    long[] n = {0};
    List<IdWalk.Gap> gaps =
        new IdWalk(from, source)
            .entries(
                (key, value) -> {
                  to.db.put(target, to.pieces, key, value);
                  n[0]++;
                });
    for (IdWalk.Gap gap : gaps) {
      lines.add(
          name + ": values of snapshot " + gap + " unreadable, dropped (" + gap.error() + ")");
    }
    return n[0];
  }
}
