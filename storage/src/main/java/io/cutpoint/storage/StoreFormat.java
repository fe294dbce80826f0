package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The format version of a RocksDB store, in the column family {@link RocksHandles#FORMAT}:
 *
 * <ul>
 *   <li>1 (no version stored): a content chunk's reference count is the number of COMPLETE
 *       snapshots that use it;
 *   <li>2: it is the number of runs of consecutive COMPLETE snapshots that use it ({@link
 *       ChunkRuns}), so that a commit writes a count only where a chunk enters or leaves the state.
 * </ul>
 *
 * Opening a store of format 1 counts the runs from the snapshots' metadata and writes them with the
 * version in one synced batch: a crash leaves the old counts or the new ones. The count of every
 * chunk that a committed snapshot lists is written, also where its entry is missing or cannot be
 * read, which is what {@link StoreRepair} relies on: it leaves the version out of the copy it
 * makes, so that the repaired store's first open counts again the references that the copy may have
 * lost. A store of a newer format than this build knows is refused, before anything is written.
 * Builds from before format 2 cannot open a store of format 2 at all: see {@link
 * RocksHandles#FORMAT}.
 */
final class StoreFormat {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StoreFormat.class);

  /** The format this build writes. */
  static final int CURRENT = 2;

  private static final byte[] KEY = "version".getBytes(StandardCharsets.UTF_8);

  private StoreFormat() {}

  /**
   * The stored version, 1 if none is.
   *
   * @throws StoreException if it is newer than {@link #CURRENT}
   */
  static int check(RocksHandles rocks) {
    int version;
    try {
      byte[] value = rocks.db.get(rocks.format, KEY);
      version =
          value == null
              ? 1
              : ByteBuffer.wrap(ValueFrames.unwrap(KEY, value, () -> "store format")).getInt();
    } catch (RocksDBException e) {
      throw rocks.fail("read the store format", e);
    }
    if (version > CURRENT) {
      throw new StoreException(
          "snapshot store "
              + rocks.dir
              + " has format "
              + version
              + ", written by a newer Cutpoint; this one reads formats up to "
              + CURRENT);
    }
    return version;
  }

  /**
   * Brings a store of format 1 to {@link #CURRENT}: the counts of {@code counts} for the chunks of
   * {@code listed} ({@link ContentChunks#rebuild}) and the version, in one synced batch.
   */
  static void upgrade(
      RocksHandles rocks,
      ContentChunks content,
      ChunkRuns.Counts counts,
      Map<ByteString, ContentChunks.Stored> listed) {
    try (WriteBatch batch = new WriteBatch()) {
      int rewritten = content.rebuild(batch, counts, listed);
      batch.put(
          rocks.format, KEY, ValueFrames.wrap(KEY, ByteBuffer.allocate(4).putInt(CURRENT).array()));
      rocks.db.write(rocks.durable, batch);
      if (rewritten > 0) {
        log.info(
            "snapshot store {}: now format {} (a content chunk's references count runs of"
                + " snapshots); {} references rewritten",
            rocks.dir,
            CURRENT,
            rewritten);
      }
    } catch (RocksDBException e) {
      throw rocks.fail("upgrade the store format to " + CURRENT, e);
    }
  }
}
