package io.cutpoint.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.MutableColumnFamilyOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WriteOptions;

/**
 * The native side of the store: the database, its column families and the option objects they were
 * opened with. Opening lists the existing column families, opens all of them and creates the
 * missing ones; closing releases everything in the order RocksJava documents (column family
 * handles, then the database, then the options). Not thread-safe: {@link RocksSnapshotStore} guards
 * it.
 */
final class RocksHandles implements AutoCloseable {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RocksHandles.class);
  static final String MANIFESTS = "manifests";
  static final String STATE_CHUNKS = "state_chunks";
  static final String CHANNEL_STATES = "channel_states";
  static final String WORKER_META = "worker_meta";
  static final String METADATA = "metadata";
  static final String CONTENT_CHUNKS = "content_chunks";
  static final String CONTENT_REFS = "content_refs";

  /**
   * The store's format version ({@link StoreFormat}). Kept in order by RocksDB's reverse bytewise
   * comparator, whose name RocksDB records: a build that opens every family with the default
   * comparator, as those before the family existed do, fails to open the store instead of reading
   * counts it does not understand.
   */
  static final String FORMAT = "format";

  static final List<String> FAMILIES =
      List.of(
          MANIFESTS,
          STATE_CHUNKS,
          CHANNEL_STATES,
          WORKER_META,
          METADATA,
          CONTENT_CHUNKS,
          CONTENT_REFS,
          FORMAT);

  final Path dir;
  final RocksDB db;
  final ColumnFamilyHandle manifests;
  final ColumnFamilyHandle stateChunks;
  final ColumnFamilyHandle channelStates;
  final ColumnFamilyHandle workerMeta;
  final ColumnFamilyHandle metadata;

  /** Content-addressed state chunks, by SHA-256; shared by snapshots ({@link ContentChunks}). */
  final ColumnFamilyHandle contentChunks;

  /** Each content chunk's reference count ({@link ChunkRuns}), with its length and CRC32C. */
  final ColumnFamilyHandle contentRefs;

  /** The format version: one key ({@link StoreFormat}). */
  final ColumnFamilyHandle format;

  /** Unused by the layout; holds only the short-lived key of {@link #probeWrite()}. */
  final ColumnFamilyHandle defaultFamily;

  /** Synced when the options ask for it: commits, metadata, finishes, deletions. */
  final WriteOptions durable;

  /** Pieces: into the WAL, not synced (the commit's sync covers them). */
  final WriteOptions pieces;

  final CompactRangeOptions compaction;
  private final List<ColumnFamilyHandle> allHandles;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final ColumnFamilyOptions formatOptions;
  private final org.rocksdb.BloomFilter bloom;
  private volatile String ioError;

  /** The table files set aside because they could not be read, on this open and earlier ones. */
  final List<TableQuarantine.SetAside> setAside;

  static {
    RocksDB.loadLibrary();
  }

  private RocksHandles(
      Path dir,
      RocksDB db,
      List<ColumnFamilyHandle> allHandles,
      DBOptions dbOptions,
      ColumnFamilyOptions cfOptions,
      ColumnFamilyOptions formatOptions,
      org.rocksdb.BloomFilter bloom,
      boolean sync,
      List<TableQuarantine.SetAside> setAside) {
    this.dir = dir;
    this.setAside = List.copyOf(setAside);
    this.db = db;
    this.allHandles = allHandles;
    this.dbOptions = dbOptions;
    this.cfOptions = cfOptions;
    this.formatOptions = formatOptions;
    this.bloom = bloom;
    this.manifests = find(MANIFESTS);
    this.stateChunks = find(STATE_CHUNKS);
    this.channelStates = find(CHANNEL_STATES);
    this.workerMeta = find(WORKER_META);
    this.metadata = find(METADATA);
    this.contentChunks = find(CONTENT_CHUNKS);
    this.contentRefs = find(CONTENT_REFS);
    this.format = find(FORMAT);
    this.defaultFamily = find("default");
    this.durable = new WriteOptions().setSync(sync);
    this.pieces = new WriteOptions().setSync(false);
    this.compaction =
        new CompactRangeOptions()
            .setBottommostLevelCompaction(
                CompactRangeOptions.BottommostLevelCompaction.kForceOptimized);
  }

  static RocksHandles open(Path dir, boolean sync) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StoreException("cannot create data directory " + dir + ": " + e, e);
    }
    String path = dir.toString();
    DBOptions dbOptions =
        new DBOptions()
            .setCreateIfMissing(true)
            .setKeepLogFileNum(4)
            .setInfoLogLevel(InfoLogLevel.WARN_LEVEL)
            .setMaxBackgroundJobs(2)
            // Start writing the log out every MiB while a large piece arrives, so that the synced
            // commit after the last part flushes only the tail, not every state byte at once.
            .setWalBytesPerSync(1L << 20)
            .setBytesPerSync(1L << 20)
            // Damage stays contained: a table file that fails its checks does not stop the open,
            // and a compaction that meets a bad block does not turn the whole database read-only
            // (both do with paranoid checks). Every read still verifies block checksums, and
            // after a full disk, writes work again once there is space. See storage.md.
            .setParanoidChecks(false);
    // Each index entry also holds its block's first key, so a seek whose range ends before a
    // block never reads it: a damaged block at the start of a newer file does not fail the reads
    // of older snapshots that RocksDB merges with that file. Automatic compactions start once
    // the table files that cannot be read are set aside (TableQuarantine).
    // A Bloom filter per table file lets a point read of a key the file does not hold skip its
    // data blocks: content chunks are keyed by hash, so a newer file's key range covers older
    // chunks, and without it a damaged block there would fail their reads too.
    org.rocksdb.BloomFilter bloom = new org.rocksdb.BloomFilter(10);
    ColumnFamilyOptions cfOptions =
        new ColumnFamilyOptions()
            .setTableFormatConfig(
                new org.rocksdb.BlockBasedTableConfig()
                    .setIndexType(org.rocksdb.IndexType.kBinarySearchWithFirstKey)
                    .setFilterPolicy(bloom))
            .setDisableAutoCompactions(true);
    ColumnFamilyOptions formatOptions =
        new ColumnFamilyOptions()
            .setComparator(org.rocksdb.BuiltinComparator.REVERSE_BYTEWISE_COMPARATOR)
            .setDisableAutoCompactions(true);
    java.util.function.Function<String, ColumnFamilyDescriptor> descriptor =
        family ->
            new ColumnFamilyDescriptor(
                family.getBytes(StandardCharsets.UTF_8),
                family.equals(FORMAT) ? formatOptions : cfOptions);
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    RocksDB db = null;
    try {
      List<byte[]> existing = existingFamilies(path);
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      Set<String> names = new HashSet<>();
      for (byte[] name : existing) {
        String family = new String(name, StandardCharsets.UTF_8);
        descriptors.add(descriptor.apply(family));
        names.add(family);
      }
      db = RocksDB.open(dbOptions, path, descriptors, handles);
      for (String family : FAMILIES) {
        if (!names.contains(family)) {
          handles.add(db.createColumnFamily(descriptor.apply(family)));
        }
      }
      Map<String, ColumnFamilyHandle> byName = new HashMap<>();
      for (ColumnFamilyHandle handle : handles) {
        byName.put(new String(handle.getName(), StandardCharsets.UTF_8), handle);
      }
      List<TableQuarantine.SetAside> setAside = TableQuarantine.run(db, dir, byName);
      MutableColumnFamilyOptions compacting =
          MutableColumnFamilyOptions.builder().setDisableAutoCompactions(false).build();
      for (ColumnFamilyHandle handle : handles) {
        db.setOptions(handle, compacting);
      }
      return new RocksHandles(
          dir, db, handles, dbOptions, cfOptions, formatOptions, bloom, sync, setAside);
    } catch (RocksDBException | RuntimeException e) {
      handles.forEach(ColumnFamilyHandle::close);
      if (db != null) {
        db.close();
      }
      cfOptions.close();
      formatOptions.close();
      bloom.close();
      dbOptions.close();
      if (!(e instanceof RocksDBException rocksError)) {
        throw (RuntimeException) e;
      }
      throw isLockError(rocksError)
          ? new StoreException(
              "data directory "
                  + dir
                  + " is in use by another process (or is already open in"
                  + " this one): "
                  + e.getMessage(),
              e)
          : fail(dir, "open", rocksError);
    }
  }

  /**
   * Wraps a RocksDB failure so that it names the store and the operation; a checksum failure of
   * RocksDB's own (a damaged block) becomes a {@link CorruptionException}.
   */
  static StoreException fail(Path dir, String operation, RocksDBException e) {
    String status = e.getStatus() == null ? "" : " [" + e.getStatus().getCodeString() + "]";
    String message =
        "snapshot store " + dir + ": " + operation + " failed" + status + ": " + e.getMessage();
    return isCorruption(e) ? new CorruptionException(message, e) : new StoreException(message, e);
  }

  /** As {@link #fail(Path, String, RocksDBException)}; also remembers an I/O error. */
  StoreException fail(String operation, RocksDBException e) {
    if (isIoError(e)) {
      ioError = operation + ": " + e.getMessage();
    }
    return fail(dir, operation, e);
  }

  /** Whether a small synced write goes through: the database takes writes. */
  boolean probeWrite() {
    byte[] key = "write_probe".getBytes(StandardCharsets.UTF_8);
    try (WriteOptions sync = new WriteOptions().setSync(true)) {
      db.put(defaultFamily, sync, key, new byte[8]);
      db.delete(defaultFamily, sync, key);
      return true;
    } catch (RocksDBException e) {
      ioError = "write probe: " + e.getMessage();
      return false;
    }
  }

  /** The last I/O error of an operation (a full disk, a failing device), or null. */
  String ioError() {
    return ioError;
  }

  void clearIoError() {
    ioError = null;
  }

  static boolean isCorruption(RocksDBException e) {
    return e.getStatus() != null && e.getStatus().getCode() == Status.Code.Corruption;
  }

  static boolean isIoError(RocksDBException e) {
    return e.getStatus() != null && e.getStatus().getCode() == Status.Code.IOError;
  }

  /** Approximate bytes: live SST files plus memtables, summed over every column family. */
  long sizeBytes() throws RocksDBException {
    long total = 0;
    for (ColumnFamilyHandle handle : allHandles) {
      total += db.getLongProperty(handle, "rocksdb.live-sst-files-size");
      total += db.getLongProperty(handle, "rocksdb.cur-size-all-mem-tables");
    }
    return total;
  }

  List<ColumnFamilyHandle> pieceFamilies() {
    return List.of(stateChunks, channelStates, workerMeta);
  }

  /** The families keyed by snapshot id: the manifests and the pieces. */
  List<ColumnFamilyHandle> snapshotFamilies() {
    return List.of(manifests, stateChunks, channelStates, workerMeta);
  }

  @Override
  public void close() {
    // Order documented by RocksJava: column family handles, then the database, then options.
    allHandles.forEach(ColumnFamilyHandle::close);
    try {
      db.syncWal();
    } catch (RocksDBException e) {
      // Closing anyway; whatever was synced before stays durable, but say that the rest may not be.
      log.warn(
          "snapshot store {}: syncing the WAL on close failed ({}); writes since the last "
              + "synced one may be lost if the machine crashes",
          dir,
          e.getMessage());
    }
    db.close();
    compaction.close();
    pieces.close();
    durable.close();
    cfOptions.close();
    formatOptions.close();
    bloom.close();
    dbOptions.close();
  }

  private ColumnFamilyHandle find(String name) {
    byte[] wanted = name.getBytes(StandardCharsets.UTF_8);
    for (ColumnFamilyHandle handle : allHandles) {
      try {
        if (java.util.Arrays.equals(handle.getName(), wanted)) {
          return handle;
        }
      } catch (RocksDBException e) {
        throw fail(dir, "column family lookup", e);
      }
    }
    throw new IllegalStateException("column family " + name + " was not opened");
  }

  private static List<byte[]> existingFamilies(String path) throws RocksDBException {
    if (!Files.exists(Path.of(path, "CURRENT"))) {
      return List.of(RocksDB.DEFAULT_COLUMN_FAMILY);
    }
    try (Options options = new Options()) {
      List<byte[]> names = RocksDB.listColumnFamilies(options, path);
      if (names.isEmpty()) {
        return List.of(RocksDB.DEFAULT_COLUMN_FAMILY);
      }
      return names;
    }
  }

  private static boolean isLockError(RocksDBException e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("/LOCK") || message.contains("lock hold by current process");
  }
}
