package io.cutpoint.storage;

import io.cutpoint.storage.SnapshotStore.RollbackIntent;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The store-wide values in the {@code metadata} column family: the cluster epoch, the high-water
 * mark of snapshot ids and the rollback in progress. Each is framed and CRC-checked like every
 * other value, kept in memory after open, and written with a synced write before the new value
 * is visible to callers.
 */
final class ClusterMetadata {
  static final String EPOCH = "epoch";
  static final String ID_HIGH_WATER = "id_high_water";
  static final String ROLLBACK_INTENT = "rollback_intent";

  private final RocksHandles rocks;
  private final int idBlock;
  private long epoch;
  private long nextId;
  private long highWater;
  private RollbackIntent rollback;

  /**
   * @param lowestFreeId an id above every id seen in the manifests
   * @param idBlock how many ids one synced write of the high-water mark reserves
   */
  ClusterMetadata(RocksHandles rocks, long lowestFreeId, int idBlock) {
    this.rocks = rocks;
    this.idBlock = idBlock;
    this.epoch = read(EPOCH).map(b -> b.getLong()).orElse(0L);
    this.highWater = read(ID_HIGH_WATER).map(b -> b.getLong()).orElse(1L);
    // Ids below the high-water mark may have been handed out before a crash: never again.
    this.nextId = Math.max(Math.max(highWater, lowestFreeId), 1);
    this.rollback =
        read(ROLLBACK_INTENT).map(b -> new RollbackIntent(b.getLong(), b.getLong())).orElse(null);
  }

  synchronized long allocateSnapshotId() {
    if (nextId >= highWater) {
      long mark = nextId + idBlock;
      try (WriteBatch batch = new WriteBatch()) {
        batch.put(rocks.metadata, key(ID_HIGH_WATER), value(ID_HIGH_WATER, mark));
        rocks.db.write(rocks.durable, batch);
      } catch (RocksDBException e) {
        throw rocks.fail("persist snapshot id high-water mark", e);
      }
      highWater = mark;
    }
    return nextId++;
  }

  synchronized long epoch() {
    return epoch;
  }

  synchronized Optional<RollbackIntent> rollback() {
    return Optional.ofNullable(rollback);
  }

  synchronized void beginRollback(long newEpoch, long snapshotId) {
    if (newEpoch <= epoch) {
      throw new IllegalArgumentException(
          "a rollback needs a new epoch above the current " + epoch + ", got " + newEpoch);
    }
    try (WriteBatch batch = new WriteBatch()) {
      batch.put(rocks.metadata, key(EPOCH), value(EPOCH, newEpoch));
      batch.put(
          rocks.metadata, key(ROLLBACK_INTENT), value(ROLLBACK_INTENT, newEpoch, snapshotId));
      rocks.db.write(rocks.durable, batch);
    } catch (RocksDBException e) {
      throw rocks.fail("persist rollback to snapshot " + snapshotId, e);
    }
    epoch = newEpoch;
    rollback = new RollbackIntent(newEpoch, snapshotId);
  }

  synchronized void finishRollback(long finishedEpoch) {
    if (rollback == null) {
      return; // already finished: finishing is idempotent
    }
    if (rollback.epoch() != finishedEpoch) {
      throw new IllegalStateException(
          "the rollback in progress is to epoch " + rollback.epoch() + ", not " + finishedEpoch);
    }
    try (WriteBatch batch = new WriteBatch()) {
      batch.delete(rocks.metadata, key(ROLLBACK_INTENT));
      rocks.db.write(rocks.durable, batch);
    } catch (RocksDBException e) {
      throw rocks.fail("persist end of rollback to epoch " + finishedEpoch, e);
    }
    rollback = null;
  }

  private Optional<ByteBuffer> read(String name) {
    byte[] value;
    try {
      value = rocks.db.get(rocks.metadata, key(name));
    } catch (RocksDBException e) {
      throw rocks.fail("read store metadata '" + name + "'", e);
    }
    if (value == null) {
      return Optional.empty();
    }
    return Optional.of(
        ByteBuffer.wrap(Frames.unwrap(key(name), value, () -> "store metadata '" + name + "'")));
  }

  private static byte[] key(String name) {
    return Keys.metadata(name);
  }

  private static byte[] value(String name, long... longs) {
    ByteBuffer buf = ByteBuffer.allocate(8 * longs.length);
    for (long v : longs) {
      buf.putLong(v);
    }
    return Frames.wrap(key(name), buf.array());
  }
}
