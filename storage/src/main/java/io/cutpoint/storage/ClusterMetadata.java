package io.cutpoint.storage;

import io.cutpoint.storage.SnapshotStore.RollbackIntent;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The store-wide values in the {@code metadata} column family: the cluster epoch, the high-water
 * mark of snapshot ids and the rollback in progress. Each is framed and CRC-checked like every
 * other value, kept in memory after open, and written with a synced write before the new value is
 * visible to callers.
 */
final class ClusterMetadata {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(ClusterMetadata.class);
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
   * Ids skipped when the high-water mark cannot be read: an id may have been handed out and left no
   * trace in any manifest, so the next one starts well above the highest one seen.
   */
  static final long IDS_SKIPPED_AFTER_DAMAGE = 10_000;

  /**
   * Epochs skipped when the epoch cannot be read: rollbacks since the newest manifest raised it
   * without a trace elsewhere, so it restarts well above the highest one seen.
   */
  static final long EPOCHS_SKIPPED_AFTER_DAMAGE = 1_000;

  /**
   * @param lowestFreeId an id above every id seen in the manifests
   * @param idBlock how many ids one synced write of the high-water mark reserves
   * @param damage where a value that fails its check is reported; opening goes on without it
   * @param highestEpoch the highest epoch in any manifest (what a damaged epoch is rebuilt from)
   */
  ClusterMetadata(
      RocksHandles rocks, long lowestFreeId, int idBlock, Damage damage, long highestEpoch) {
    this.rocks = rocks;
    this.idBlock = idBlock;
    Optional<ByteBuffer> intent = readChecked(ROLLBACK_INTENT);
    boolean intentLost = intent == null;
    RollbackIntent read =
        intentLost
            ? null
            : intent.map(b -> new RollbackIntent(b.getLong(), b.getLong())).orElse(null);
    this.rollback = read;
    Optional<ByteBuffer> storedEpoch = readChecked(EPOCH);
    if (storedEpoch == null) {
      long known = Math.max(highestEpoch, read == null ? 0 : read.epoch());
      this.epoch = known + EPOCHS_SKIPPED_AFTER_DAMAGE;
      lost(
          damage,
          EPOCH,
          "the epoch is now "
              + epoch
              + ", "
              + EPOCHS_SKIPPED_AFTER_DAMAGE
              + " above the highest in any manifest or rollback intent");
      write(EPOCH, epoch);
    } else {
      this.epoch = storedEpoch.map(ByteBuffer::getLong).orElse(0L);
    }
    if (intentLost) {
      // A rollback may have been half done: some workers restored, others not. Running on would
      // mix their states, so the workers are held and rolled back to a snapshot that verifies.
      this.rollback = new RollbackIntent(epoch, RollbackIntent.UNKNOWN_TARGET);
      lost(
          damage,
          ROLLBACK_INTENT,
          "a rollback may have been in progress; the workers are held and rolled back to the"
              + " newest complete snapshot that verifies");
      write(ROLLBACK_INTENT, epoch, RollbackIntent.UNKNOWN_TARGET);
    }
    Optional<ByteBuffer> storedMark = readChecked(ID_HIGH_WATER);
    long fresh = Math.max(lowestFreeId, 1);
    if (storedMark == null) {
      this.highWater = fresh + IDS_SKIPPED_AFTER_DAMAGE;
      lost(
          damage,
          ID_HIGH_WATER,
          "ids restart at "
              + highWater
              + ", "
              + IDS_SKIPPED_AFTER_DAMAGE
              + " above the highest one stored");
      write(ID_HIGH_WATER, highWater);
    } else {
      this.highWater = storedMark.map(ByteBuffer::getLong).orElse(1L);
    }
    // Ids below the high-water mark may have been handed out before a crash: never again.
    this.nextId = Math.max(highWater, fresh);
  }

  private void lost(Damage damage, String name, String consequence) {
    String what = "store metadata '" + name + "' cannot be read: " + consequence;
    log.error("Store {}: {}", rocks.dir, what);
    damage.catalog(what);
  }

  /** Best effort: the damaged value is replaced now, or on its next write. */
  private void write(String name, long... values) {
    try (WriteBatch batch = new WriteBatch()) {
      batch.put(rocks.metadata, key(name), value(name, values));
      rocks.db.write(rocks.durable, batch);
    } catch (RocksDBException e) {
      log.warn("Store {}: could not replace the damaged '{}': {}", rocks.dir, name, e.getMessage());
    }
  }

  /**
   * The value, empty if absent, null if it fails its checks or was in a table file that this open
   * set aside (reported to the caller).
   */
  private Optional<ByteBuffer> readChecked(String name) {
    try {
      Optional<ByteBuffer> value = read(name);
      if (value.isEmpty()
          && rocks.setAside.stream()
              .anyMatch(s -> s.now() && s.family().equals(RocksHandles.METADATA))) {
        log.error(
            "Store {}: store metadata '{}' is missing; it was in a table file set aside",
            rocks.dir,
            name);
        return null;
      }
      return value;
    } catch (CorruptionException e) {
      log.error("Store {}: {}", rocks.dir, e.getMessage());
      return null;
    }
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
      batch.put(rocks.metadata, key(ROLLBACK_INTENT), value(ROLLBACK_INTENT, newEpoch, snapshotId));
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
        ByteBuffer.wrap(
            ValueFrames.unwrap(key(name), value, () -> "store metadata '" + name + "'")));
  }

  private static byte[] key(String name) {
    return Keys.metadata(name);
  }

  private static byte[] value(String name, long... longs) {
    ByteBuffer buf = ByteBuffer.allocate(8 * longs.length);
    for (long v : longs) {
      buf.putLong(v);
    }
    return ValueFrames.wrap(key(name), buf.array());
  }
}
