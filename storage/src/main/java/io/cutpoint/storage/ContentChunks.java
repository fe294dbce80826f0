package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * The content-addressed state chunks of the RocksDB store, shared by every snapshot that holds the
 * same bytes. Two column families:
 *
 * <pre>
 *   content_chunks: SHA-256 (32 bytes) -> the chunk's bytes (framed; the frame's CRC covers the hash)
 *   content_refs:   SHA-256 (32 bytes) -> its reference count (8 bytes), its length (4 bytes) and
 *                                         CRC32C (4 bytes), framed
 * </pre>
 *
 * <p>The count is that of {@link ChunkRuns}: how many runs of consecutive COMPLETE snapshots use
 * the chunk, positive exactly while one does ({@link StoreFormat} 2; format 1 counted the
 * snapshots). A chunk's body is written as it arrives; its count changes only in the synced batch
 * of a commit, where the chunk enters or leaves the state, and in the batch that deletes a
 * snapshot, which deletes the body too once no snapshot uses it. So a committed snapshot never
 * references a missing chunk, and a body that no reference names is a leftover of a snapshot that
 * did not commit: the batch that ends such a snapshot deletes it, and so does opening the store,
 * for those a crash left.
 *
 * <p>Every change to the references, every deletion, and every decision that a chunk is (or is not)
 * in use, happens under {@link #lock}: a chunk that a pending snapshot holds or uploaded is never
 * deleted under it. What is slow happens outside it, checked under it afterwards: the lookup of a
 * query's thousands of chunks ({@link #withRefs}) and the write of an uploaded body ({@link
 * #putBody}). Each checks {@link #releases}, so that a deletion decided meanwhile is seen.
 */
final class ContentChunks {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(ContentChunks.class);

  /** Length of a SHA-256. */
  static final int HASH_BYTES = 32;

  /** A stored chunk's length and CRC32C. */
  record Stored(int length, int crc32c) {}

  /** A chunk's reference count, with its length and CRC32C. */
  record Ref(long count, Stored stored) {}

  /**
   * Guards both families; taken after a snapshot's lock and {@code manifestWrites}, never before.
   */
  final Object lock = new Object();

  private final RocksHandles rocks;

  /**
   * How many times a deletion was decided ({@link #release}, {@link #dropUnreferenced}); read and
   * changed under {@link #lock}. Unchanged between two moments, no body or reference was deleted in
   * between.
   */
  private long releases;

  /**
   * Runs between what {@link #withRefs} and {@link #putBody} do outside {@link #lock} and their
   * check under it: nothing here, a deletion in the tests that show the check is needed.
   */
  volatile Runnable meanwhile = () -> {};

  ContentChunks(RocksHandles rocks) {
    this.rocks = rocks;
  }

  /** The chunks of a stored meta's state, by hash, each once. */
  static Map<ByteString, Stored> of(LocalSnapshotMeta meta) {
    Map<ByteString, Stored> out = new LinkedHashMap<>();
    for (ContentChunk c : meta.getContentList()) {
      out.putIfAbsent(c.getSha256(), new Stored(c.getLength(), c.getCrc32C()));
    }
    return out;
  }

  /** Names a chunk in errors: its position in a worker's state and the start of its hash. */
  static String describe(int index, ByteString hash) {
    return "content chunk " + index + " (sha256 " + shortHex(hash) + ")";
  }

  static String shortHex(ByteString hash) {
    return HexFormat.of().formatHex(hash.substring(0, Math.min(8, hash.size())).toByteArray());
  }

  /**
   * The chunk's reference entry, or null if no committed snapshot uses it. Hold {@link #lock} to
   * decide on it.
   */
  Ref ref(ByteString hash) {
    byte[] key = hash.toByteArray();
    try {
      return decode(hash, key, rocks.db.get(rocks.contentRefs, key));
    } catch (RocksDBException e) {
      throw rocks.fail("read the references of content chunk " + shortHex(hash), e);
    }
  }

  /**
   * The reference entries of {@code hashes}, in order (null where no committed snapshot uses the
   * chunk), read in one {@code multiGet}: a commit or a query of thousands of chunks pays one call
   * into RocksDB, not one each. Hold {@link #lock} to decide on them.
   */
  Ref[] refs(List<ByteString> hashes) {
    if (hashes.isEmpty()) {
      return new Ref[0]; // multiGet asserts that it is asked for something
    }
    List<byte[]> keys = new ArrayList<>(hashes.size());
    for (ByteString hash : hashes) {
      keys.add(hash.toByteArray());
    }
    try {
      List<byte[]> values =
          rocks.db.multiGetAsList(Collections.nCopies(keys.size(), rocks.contentRefs), keys);
      Ref[] out = new Ref[keys.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = decode(hashes.get(i), keys.get(i), values.get(i));
      }
      return out;
    } catch (RocksDBException e) {
      throw rocks.fail("read the references of " + hashes.size() + " content chunks", e);
    }
  }

  /**
   * Calls {@code decide} under {@link #lock} with the reference entries of {@code hashes}. They are
   * read before the lock is taken, so that a query of thousands of chunks does not stall the
   * uploads and the other workers' queries, and read again under it only if a deletion was decided
   * meanwhile: {@code decide} sees entries no deletion has overtaken.
   */
  <T> T withRefs(List<ByteString> hashes, java.util.function.Function<Ref[], T> decide) {
    long seen = releases();
    Ref[] early = refs(hashes);
    meanwhile.run();
    synchronized (lock) {
      return decide.apply(releases == seen ? early : refs(hashes));
    }
  }

  /** {@link #releases}, read under the lock. */
  long releases() {
    synchronized (lock) {
      return releases;
    }
  }

  private static Ref decode(ByteString hash, byte[] key, byte[] value) {
    if (value == null) {
      return null;
    }
    ByteBuffer b =
        ByteBuffer.wrap(
            ValueFrames.unwrap(key, value, () -> "content chunk " + shortHex(hash) + ", refs"));
    return new Ref(b.getLong(), new Stored(b.getInt(), b.getInt()));
  }

  /**
   * Writes a chunk's bytes, whose CRC32C the caller checked (not synced), unless a committed
   * snapshot uses the chunk already: a second copy in a newer table file would shadow the first,
   * and damage to that file would then fail every snapshot that shares the chunk. Then calls {@code
   * record} under {@link #lock}, with the body stored. The write happens outside the lock; if a
   * deletion was decided meanwhile, the body is written again under it where no reference keeps it,
   * since that deletion may have removed it. With {@code replace} (a read found the stored body
   * missing or bad) the body is written whatever the references.
   */
  void putBody(ByteString hash, byte[] data, int crc32c, boolean replace, Runnable record) {
    long seen = releases();
    if (replace || ref(hash) == null) {
      writeBody(hash, data, crc32c);
    }
    meanwhile.run();
    synchronized (lock) {
      if (releases != seen && ref(hash) == null) {
        writeBody(hash, data, crc32c);
      }
      record.run();
    }
  }

  private void writeBody(ByteString hash, byte[] data, int crc32c) {
    byte[] key = hash.toByteArray();
    try {
      rocks.db.put(rocks.contentChunks, rocks.pieces, key, ValueFrames.wrap(key, data, crc32c));
    } catch (RocksDBException e) {
      throw rocks.fail("store content chunk " + shortHex(hash), e);
    }
  }

  /**
   * Reads a chunk's stored value into {@code into}, from its start, and checks it against its frame
   * and against the CRC32C {@code crc32c} it is listed with, in one pass: no array is allocated for
   * it. Returns the length of its bytes, which start at {@link ValueFrames#HEADER} (as large an
   * {@code into} as the chunk's listed length needs: a value that does not fit is not read, and its
   * length, which is not the listed one, is returned unchecked), or -1 if it is not stored.
   */
  int read(ByteString hash, int crc32c, byte[] into, java.util.function.Supplier<String> piece) {
    byte[] key = hash.toByteArray();
    try {
      int size = rocks.db.get(rocks.contentChunks, key, 0, key.length, into, 0, into.length);
      if (size == RocksDB.NOT_FOUND) {
        return -1;
      }
      return size > into.length
          ? size - ValueFrames.HEADER
          : ValueFrames.check(key, into, size, crc32c, piece);
    } catch (CorruptionException e) { // of the frame or the listed CRC32C
      throw new ChunkDamageException(e.getMessage(), hash);
    } catch (RocksDBException e) {
      throw rocks.fail("read content chunk " + shortHex(hash), e);
    }
  }

  /**
   * Changes, in {@code batch}, each chunk's reference count by its {@code delta} ({@link
   * ChunkRuns}). A chunk without an entry gets one if {@code added} has its length and CRC32C and
   * its change is not negative (at least 1: a chunk the snapshot uploaded, listed with 0, has its
   * entry again if damage lost it). A chunk whose count reaches 0 loses its entry, and its body too
   * unless {@code inUse} (a pending snapshot holds or uploaded it). Hold {@link #lock} until the
   * batch is written.
   *
   * @return the number of chunk bodies deleted
   */
  int count(
      WriteBatch batch,
      Map<ByteString, Integer> delta,
      Map<ByteString, Stored> added,
      Predicate<ByteString> inUse)
      throws RocksDBException {
    if (delta.values().stream().anyMatch(d -> d < 0)) {
      releases++;
    }
    int deleted = 0;
    List<ByteString> hashes = new ArrayList<>(delta.keySet());
    Ref[] now = refs(hashes);
    for (int i = 0; i < now.length; i++) {
      ByteString hash = hashes.get(i);
      int d = delta.get(hash);
      Ref ref = now[i];
      if (ref == null) {
        Stored stored = added.get(hash);
        if (d >= 0 && stored != null) {
          putRef(batch, hash, Math.max(d, 1), stored);
        }
        continue; // never committed: nothing to release
      }
      if (d == 0) {
        continue;
      }
      long count = ref.count() + d;
      if (count > 0) {
        putRef(batch, hash, count, ref.stored());
        continue;
      }
      batch.delete(rocks.contentRefs, hash.toByteArray());
      if (!inUse.test(hash)) {
        batch.delete(rocks.contentChunks, hash.toByteArray());
        deleted++;
      }
    }
    return deleted;
  }

  /**
   * Writes again, in one synced batch, the entry of every chunk that committed snapshots list
   * ({@code listed}, with the length and CRC32C their metadata gives), counted as {@code counts}
   * says (at least 1), where it is missing, cannot be read or counts otherwise. The open does this
   * when a damaged table file of the references was set aside: without it, the collection that
   * follows would delete the bodies of chunks that COMPLETE snapshots use, and a later deletion
   * could count one down to 0 while another snapshot still uses it. A chunk no readable metadata
   * lists keeps what it has: no known snapshot uses it, yet one did when it was last counted.
   *
   * @return the number of entries written
   */
  int rebuild(ChunkRuns.Counts counts, Map<ByteString, Stored> listed) {
    try (WriteBatch batch = new WriteBatch()) {
      int written = rebuild(batch, counts, listed);
      if (written > 0) {
        rocks.db.write(rocks.durable, batch);
      }
      return written;
    } catch (RocksDBException e) {
      throw rocks.fail("count the references of content chunks again", e);
    }
  }

  /** {@link #rebuild(ChunkRuns.Counts, Map)} into {@code batch}, which the caller writes. */
  int rebuild(WriteBatch batch, ChunkRuns.Counts counts, Map<ByteString, Stored> listed)
      throws RocksDBException {
    List<ByteString> hashes = new ArrayList<>(listed.keySet());
    int written = 0;
    for (int from = 0; from < hashes.size(); from += REBUILD_BATCH) {
      List<ByteString> some = hashes.subList(from, Math.min(hashes.size(), from + REBUILD_BATCH));
      Ref[] now = refsOrMissing(some);
      for (int i = 0; i < now.length; i++) {
        ByteString hash = some.get(i);
        long count = Math.max(1, counts.of(hash));
        if (now[i] == null || now[i].count() != count) {
          putRef(batch, hash, count, listed.get(hash));
          written++;
        }
      }
    }
    return written;
  }

  /**
   * Reads every reference entry and names those that fail their checks, at most {@code limit} of
   * them (then how many more): a deletion or commit that must change such a count fails, and {@link
   * StoreRepair} rewrites it. An unreadable block stops the scan, and is named too.
   */
  List<String> unreadableRefs(int limit) {
    List<String> out = new ArrayList<>();
    int more = 0;
    try (ReadOptions read = new ReadOptions().setFillCache(false);
        RocksIterator it = rocks.db.newIterator(rocks.contentRefs, read)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        ByteString hash = ByteString.copyFrom(it.key());
        try {
          decode(hash, it.key(), it.value());
        } catch (CorruptionException e) {
          if (out.size() < limit) {
            out.add(e.getMessage());
          } else {
            more++;
          }
        }
      }
      it.status();
    } catch (RocksDBException e) {
      out.add("the scan stopped at unreadable data: " + e.getMessage());
    }
    if (more > 0) {
      out.add(more + " more");
    }
    return out;
  }

  private static final int REBUILD_BATCH = 4096;

  /** {@link #refs}, with an entry that cannot be read taken as missing. */
  private Ref[] refsOrMissing(List<ByteString> hashes) {
    try {
      return refs(hashes);
    } catch (CorruptionException e) {
      Ref[] out = new Ref[hashes.size()];
      for (int i = 0; i < out.length; i++) {
        try {
          out[i] = refs(List.of(hashes.get(i)))[0];
        } catch (CorruptionException one) {
          out[i] = null;
        }
      }
      return out;
    }
  }

  /**
   * Deletes, in {@code batch}, the bodies of chunks that a snapshot ending without a commit
   * uploaded, unless a committed snapshot references them or {@code inUse}. Hold {@link #lock}.
   */
  int dropUnreferenced(WriteBatch batch, Collection<ByteString> hashes, Predicate<ByteString> inUse)
      throws RocksDBException {
    releases++;
    int deleted = 0;
    List<ByteString> all = List.copyOf(hashes);
    Ref[] refs = refs(all);
    for (int i = 0; i < refs.length; i++) {
      ByteString hash = all.get(i);
      if (refs[i] == null && !inUse.test(hash)) {
        batch.delete(rocks.contentChunks, hash.toByteArray());
        deleted++;
      }
    }
    return deleted;
  }

  /**
   * On open, before any pending snapshot exists: deletes every chunk body that no reference names
   * (one synced batch), what a crash left of snapshots that never committed. A reference whose body
   * is missing stays: the snapshots that use it fail their reads as damaged.
   *
   * @return the number of bodies deleted
   */
  int collectGarbage() {
    int deleted = 0;
    String stopped = null;
    try (WriteBatch batch = new WriteBatch()) {
      try (ReadOptions read = new ReadOptions().setFillCache(false);
          RocksIterator bodies = rocks.db.newIterator(rocks.contentChunks, read);
          RocksIterator refs = rocks.db.newIterator(rocks.contentRefs, read)) {
        refs.seekToFirst();
        for (bodies.seekToFirst(); bodies.isValid(); bodies.next()) {
          byte[] key = bodies.key();
          while (refs.isValid() && java.util.Arrays.compareUnsigned(refs.key(), key) < 0) {
            refs.next();
          }
          refs.status();
          if (!refs.isValid() || !java.util.Arrays.equals(refs.key(), key)) {
            batch.delete(rocks.contentChunks, key);
            deleted++;
          }
        }
        bodies.status();
      } catch (RocksDBException e) {
        // Damage stays contained: what could not be read is left for a later open.
        stopped = e.getMessage();
      }
      if (deleted > 0) {
        rocks.db.write(rocks.durable, batch);
      }
    } catch (RocksDBException e) {
      throw rocks.fail("delete unreferenced content chunks", e);
    }
    if (stopped != null) {
      log.warn(
          "snapshot store {}: the search for content chunks that no committed snapshot uses stopped"
              + " at unreadable data ({}); {} found before it were deleted, the rest stay until a"
              + " later open",
          rocks.dir,
          stopped,
          deleted);
    } else if (deleted > 0) {
      log.info(
          "snapshot store {}: deleted {} content chunks that no committed snapshot uses",
          rocks.dir,
          deleted);
    }
    return deleted;
  }

  private void putRef(WriteBatch batch, ByteString hash, long count, Stored stored)
      throws RocksDBException {
    byte[] key = hash.toByteArray();
    byte[] payload =
        ByteBuffer.allocate(16)
            .putLong(count)
            .putInt(stored.length())
            .putInt(stored.crc32c())
            .array();
    batch.put(rocks.contentRefs, key, ValueFrames.wrap(key, payload));
  }
}
