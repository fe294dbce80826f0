package io.cutpoint.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Direct access to a closed store's database through the RocksDB API, to damage it the way a disk
 * would: flip a byte of a stored value, drop a key.
 */
final class RawDb implements AutoCloseable {
  private final RawStore raw;
  private final RocksDB db;

  RawDb(Path dir) throws RocksDBException {
    raw = RawStore.openWithDefaultTables(dir);
    db = raw.db();
  }

  List<String> families() {
    return raw.families();
  }

  /** Keys of {@code snapshotId} in {@code family}, in order. */
  List<byte[]> keys(String family, long snapshotId) throws RocksDBException {
    List<byte[]> keys = new ArrayList<>();
    try (RocksIterator it = db.newIterator(handle(family))) {
      for (it.seek(ByteBuffer.allocate(8).putLong(snapshotId).array()); it.isValid(); it.next()) {
        if (ByteBuffer.wrap(it.key()).getLong() != snapshotId) {
          break;
        }
        keys.add(it.key());
      }
    }
    return keys;
  }

  /** Every key of {@code family}, in order. */
  List<byte[]> allKeys(String family) {
    List<byte[]> keys = new ArrayList<>();
    try (RocksIterator it = db.newIterator(handle(family))) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        keys.add(it.key());
      }
    }
    return keys;
  }

  /** Flips one bit of the byte at {@code offset} of the value under {@code key}. */
  void flipByte(String family, byte[] key, int offset) throws RocksDBException {
    byte[] value = db.get(handle(family), key);
    value[offset] ^= 0x10;
    db.put(handle(family), key, value);
  }

  void copyValue(String family, byte[] from, byte[] to) throws RocksDBException {
    db.put(handle(family), to, db.get(handle(family), from));
  }

  byte[] get(String family, byte[] key) throws RocksDBException {
    return db.get(handle(family), key);
  }

  void put(String family, byte[] key, byte[] value) throws RocksDBException {
    db.put(handle(family), key, value);
  }

  void delete(String family, byte[] key) throws RocksDBException {
    db.delete(handle(family), key);
  }

  /** Writes every memtable out to SST files, so that the damage a test does is on disk. */
  void flushAll() throws RocksDBException {
    try (org.rocksdb.FlushOptions flush = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
      db.flush(flush, raw.handles());
    }
  }

  List<org.rocksdb.LiveFileMetaData> liveFiles() {
    return db.getLiveFilesMetaData();
  }

  /** The live SST files of {@code family}, with their paths. */
  List<Path> sstFiles(Path dir, String family) {
    List<Path> files = new ArrayList<>();
    for (org.rocksdb.LiveFileMetaData f : db.getLiveFilesMetaData()) {
      if (new String(f.columnFamilyName(), StandardCharsets.UTF_8).equals(family)) {
        files.add(dir.resolve(f.fileName().replaceFirst("^/", "")));
      }
    }
    return files;
  }

  private ColumnFamilyHandle handle(String family) {
    return raw.handle(family);
  }

  @Override
  public void close() {
    raw.close();
  }
}
