package io.cutpoint.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.BuiltinComparator;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.IndexType;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * A closed store's database opened through RocksDB's own API, for tests that damage it from outside
 * the way a disk would. The format family is opened with its reverse comparator (without it RocksDB
 * refuses the open, as it does for builds before the format existed); the others, by {@link #open},
 * with index entries that hold their block's first key and a Bloom filter, so that the files a test
 * makes it flush are laid out like the store's own, or, by {@link #openWithDefaultTables}, with
 * RocksDB's default table layout, which the tests that damage a file at a fixed offset were written
 * for.
 */
public final class RawStore implements AutoCloseable {
  private final BloomFilter bloom = new BloomFilter(10);
  private final ColumnFamilyOptions tables;
  private final ColumnFamilyOptions format =
      new ColumnFamilyOptions().setComparator(BuiltinComparator.REVERSE_BYTEWISE_COMPARATOR);
  private final DBOptions options = new DBOptions();
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private final RocksDB db;

  private RawStore(Path dir, boolean storeTables) throws RocksDBException {
    tables =
        storeTables
            ? new ColumnFamilyOptions()
                .setTableFormatConfig(
                    new BlockBasedTableConfig()
                        .setIndexType(IndexType.kBinarySearchWithFirstKey)
                        .setFilterPolicy(bloom))
            : new ColumnFamilyOptions();
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (Options list = new Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(list, dir.toString())) {
        String family = new String(name, StandardCharsets.UTF_8);
        descriptors.add(
            new ColumnFamilyDescriptor(name, family.equals(RocksHandles.FORMAT) ? format : tables));
        names.add(family);
      }
    }
    RocksDB opened;
    try {
      opened = RocksDB.open(options, dir.toString(), descriptors, handles);
    } catch (RocksDBException e) {
      closeOptions();
      throw e;
    }
    db = opened;
  }

  public static RawStore open(Path dir) throws RocksDBException {
    return new RawStore(dir, true);
  }

  public static RawStore openWithDefaultTables(Path dir) throws RocksDBException {
    return new RawStore(dir, false);
  }

  public RocksDB db() {
    return db;
  }

  /** Every family's handle, in the order of {@link #families()}. */
  public List<ColumnFamilyHandle> handles() {
    return handles;
  }

  public List<String> families() {
    return names;
  }

  public ColumnFamilyHandle handle(String family) {
    return handles.get(names.indexOf(family));
  }

  @Override
  public void close() {
    handles.forEach(ColumnFamilyHandle::close);
    db.close();
    closeOptions();
  }

  private void closeOptions() {
    options.close();
    tables.close();
    format.close();
    bloom.close();
  }
}
