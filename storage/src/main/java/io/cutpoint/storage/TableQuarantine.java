package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.LevelMetaData;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.SstFileReader;

/**
 * Table files that RocksDB cannot open (a damaged footer, index, metaindex or properties block).
 * RocksDB opens the database anyway (paranoid checks are off) but then fails every read of the
 * column family that consults such a file, which for a file in level 0 is every read of the family.
 * So opening checks that each live table file opens; one that does not is set aside: a hard link to
 * it is kept in {@value #FOLDER}/ inside the data directory (never deleted), and the file is taken
 * out of the database (level 0 files are first moved down with {@code PromoteL0}, then {@code
 * DeleteFilesInRanges} drops the file's key range). The remaining files of the family read again.
 * Each file set aside is recorded, one line each, in {@value #FOLDER}/{@value #RECORDS}; the store
 * uses the records, on this open and on every later one, to mark the snapshots that lost pieces
 * with it.
 *
 * <p>RocksJava has no {@code DeleteFile}; {@code PromoteL0} needs the level 0 files to have
 * disjoint key ranges and level 1 to be empty (true for a small store: levels are filled from the
 * bottom). A file that cannot be taken out is reported and stays; its family then needs {@code
 * cutpoint store repair}.
 */
final class TableQuarantine {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(TableQuarantine.class);
  static final String FOLDER = "damaged";
  static final String RECORDS = "SET_ASIDE";

  /**
   * A table file that could not be read.
   *
   * @param firstId the snapshot id of its smallest key (0 for the metadata family)
   * @param lastId the snapshot id of its largest key
   * @param removed whether it is out of the database; if not, every read of its family fails
   * @param now whether this open found it (rather than an earlier one)
   */
  record SetAside(
      String family,
      String file,
      long firstId,
      long lastId,
      boolean removed,
      String error,
      boolean now) {
    boolean contains(long id) {
      return id >= firstId && id <= lastId;
    }

    /** What a damaged snapshot's reason and the store check say about it. */
    String describe(Path dir) {
      String ids =
          RocksHandles.METADATA.equals(family)
              ? "store metadata"
              : firstId == lastId
                  ? "snapshot id " + firstId
                  : "snapshot ids " + firstId + ".." + lastId;
      return "table file "
          + file
          + " ("
          + family
          + ", "
          + ids
          + ") could not be read ("
          + error
          + ")"
          + (removed
              ? " and is set aside in " + dir.resolve(FOLDER)
              : " and could not be set aside");
    }

    String line() {
      return String.join(
          "\t",
          family,
          file,
          Long.toString(firstId),
          Long.toString(lastId),
          error.replaceAll("[\t\r\n]", " "));
    }

    static SetAside parse(String line) {
      String[] f = line.split("\t", 5);
      return new SetAside(
          f[0],
          f[1],
          Long.parseLong(f[2]),
          Long.parseLong(f[3]),
          true,
          f.length > 4 ? f[4] : "",
          false);
    }
  }

  private TableQuarantine() {}

  /**
   * Sets aside every live table file that cannot be opened. Needs automatic compactions off, so
   * that no compaction holds the files meanwhile.
   *
   * @return the files set aside now and on earlier opens (from the records)
   */
  static List<SetAside> run(RocksDB db, Path dir, Map<String, ColumnFamilyHandle> families) {
    List<SetAside> all = new ArrayList<>(earlier(dir));
    List<LiveFileMetaData> unreadable = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    for (LiveFileMetaData f : db.getLiveFilesMetaData()) {
      String error = openError(dir.resolve(name(f)));
      if (error != null) {
        unreadable.add(f);
        errors.add(error);
      }
    }
    if (unreadable.isEmpty()) {
      return all;
    }
    try {
      Files.createDirectories(dir.resolve(FOLDER));
    } catch (IOException e) {
      throw new StoreException(
          "cannot create " + dir.resolve(FOLDER) + " to set damaged table" + " files aside: " + e,
          e);
    }
    for (int i = 0; i < unreadable.size(); i++) {
      LiveFileMetaData f = unreadable.get(i);
      String family = new String(f.columnFamilyName(), StandardCharsets.UTF_8);
      ColumnFamilyHandle handle = families.get(family);
      String refused = handle == null ? "column family not opened" : takeOut(db, dir, handle, f);
      SetAside s =
          new SetAside(
              family,
              name(f),
              idOf(family, f.smallestKey()),
              idOf(family, f.largestKey()),
              refused == null,
              errors.get(i) + (refused == null ? "" : "; " + refused),
              true);
      all.add(s);
      if (s.removed()) {
        log.error(
            "Store {}: {}; the snapshots that had pieces in it are marked damaged",
            dir,
            s.describe(dir));
        record(dir, s);
      } else {
        log.error(
            "Store {}: {}; every read of {} fails until `cutpoint store repair`",
            dir,
            s.describe(dir),
            family);
      }
    }
    return all;
  }

  /**
   * Verifies the COMPLETE snapshots whose ids lie in the range of a table file set aside, and marks
   * the ones that fail (they had pieces in it, or a deletion in it came undone) damaged, naming the
   * file. Manifests and store metadata in such a file are handled by {@link Recovery} and {@link
   * ClusterMetadata}.
   */
  static void markDamaged(RocksHandles rocks, StoreReader reader, Damage damage) {
    for (SetAside s : rocks.setAside) {
      if (!s.removed()) {
        damage.catalog(
            s.describe(rocks.dir)
                + "; every read of "
                + s.family()
                + " fails until `cutpoint store repair`");
      }
    }
    List<SetAside> ranges =
        rocks.setAside.stream().filter(s -> !s.family().equals(RocksHandles.METADATA)).toList();
    if (ranges.isEmpty()) {
      return;
    }
    Verification verification = new Verification(reader, rocks);
    List<SnapshotManifest> complete;
    try {
      complete =
          reader.newestFirst(
              java.util.Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE),
              Integer.MAX_VALUE,
              false,
              damage);
    } catch (StoreException e) {
      log.error(
          "Store {}: cannot list the snapshots to check after setting table files aside:" + " {}",
          rocks.dir,
          e.getMessage());
      return;
    }
    for (SnapshotManifest m : complete) {
      long id = m.getSnapshotId();
      // a content chunk file may hold chunks of any snapshot: each is checked
      SetAside hit =
          ranges.stream()
              .filter(s -> s.family().equals(RocksHandles.CONTENT_CHUNKS) || s.contains(id))
              .findFirst()
              .orElse(null);
      if (hit == null) {
        continue;
      }
      try {
        verification.verify(m, Map.of());
      } catch (CorruptionException e) {
        String reason = hit.describe(rocks.dir) + ": " + e.getMessage();
        log.error("Snapshot {} is damaged: {}", id, reason);
        damage.snapshot(id, reason, e);
      } catch (StoreException e) {
        // the family still cannot be read (the file could not be set aside)
        damage.snapshot(id, hit.describe(rocks.dir) + ": " + e.getMessage());
      }
    }
  }

  /** Why the table file cannot be opened, or null if it can. */
  static String openError(Path file) {
    try (Options options = new Options();
        SstFileReader reader = new SstFileReader(options)) {
      reader.open(file.toString());
      return null;
    } catch (RocksDBException e) {
      return e.getMessage();
    }
  }

  /** Links the file into the folder, then drops it from the database; null, or why not. */
  private static String takeOut(
      RocksDB db, Path dir, ColumnFamilyHandle handle, LiveFileMetaData f) {
    try {
      if (f.level() == 0) {
        int target = emptyLevelsBelowZero(db, handle);
        if (target < 1) {
          return "it is in level 0 and level 1 is not empty";
        }
        db.promoteL0(handle, target);
      }
      // Files of other levels that lie wholly inside the range go too: keep them as well.
      for (LiveFileMetaData other : db.getLiveFilesMetaData()) {
        if (other.level() > 0
            && java.util.Arrays.equals(other.columnFamilyName(), f.columnFamilyName())
            && within(other, f)) {
          keep(dir, dir.resolve(name(other)));
        }
      }
      db.deleteFilesInRanges(handle, List.of(f.smallestKey(), f.largestKey()), true);
    } catch (RocksDBException | IOException e) {
      return e.getMessage();
    }
    for (LiveFileMetaData left : db.getLiveFilesMetaData()) {
      if (name(left).equals(name(f))) {
        return "RocksDB kept it in level " + left.level();
      }
    }
    return null;
  }

  /** The deepest level L such that levels 1..L are empty (0 if level 1 holds files). */
  private static int emptyLevelsBelowZero(RocksDB db, ColumnFamilyHandle handle) {
    int deepest = 0;
    for (LevelMetaData level : db.getColumnFamilyMetaData(handle).levels()) {
      if (level.level() == 0) {
        continue;
      }
      if (!level.files().isEmpty()) {
        break;
      }
      deepest = level.level();
    }
    return deepest;
  }

  private static boolean within(LiveFileMetaData inner, LiveFileMetaData outer) {
    return java.util.Arrays.compareUnsigned(inner.smallestKey(), outer.smallestKey()) >= 0
        && java.util.Arrays.compareUnsigned(inner.largestKey(), outer.largestKey()) <= 0;
  }

  private static void keep(Path dir, Path file) throws IOException {
    Path kept = dir.resolve(FOLDER).resolve(file.getFileName());
    for (int n = 1; Files.exists(kept); n++) {
      kept = dir.resolve(FOLDER).resolve(file.getFileName() + "." + n);
    }
    try {
      Files.createLink(kept, file);
    } catch (UnsupportedOperationException | IOException e) {
      Files.copy(file, kept);
    }
  }

  private static void record(Path dir, SetAside s) {
    try {
      Files.writeString(
          dir.resolve(FOLDER).resolve(RECORDS),
          s.line() + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND,
          StandardOpenOption.SYNC);
    } catch (IOException e) {
      log.warn("Store {}: could not record the table file set aside: {}", dir, e.toString());
    }
  }

  private static List<SetAside> earlier(Path dir) {
    Path records = dir.resolve(FOLDER).resolve(RECORDS);
    if (!Files.exists(records)) {
      return List.of();
    }
    List<SetAside> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(records, StandardCharsets.UTF_8)) {
        try {
          if (!line.isBlank()) {
            out.add(SetAside.parse(line));
          }
        } catch (RuntimeException e) {
          log.warn("Store {}: skipping an unreadable line of {}: {}", dir, records, line);
        }
      }
    } catch (IOException e) {
      log.warn("Store {}: cannot read {}: {}", dir, records, e.toString());
    }
    return out;
  }

  private static long idOf(String family, byte[] key) {
    return RocksHandles.METADATA.equals(family) || key.length < 8 ? 0 : Keys.snapshotIdOf(key);
  }

  private static String name(LiveFileMetaData f) {
    return f.fileName().replaceFirst("^/", "");
  }
}
