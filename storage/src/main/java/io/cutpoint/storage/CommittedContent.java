package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerPiece;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The COMPLETE snapshots of the RocksDB store in id order, and the content chunks each uses: the
 * neighbours whose chunks {@link ChunkRuns} compares a commit or a deletion with. A commit reads
 * only the chunks whose count changes; the snapshot before it is usually the newest, whose chunks
 * are kept here from its own commit, so it reads no metadata either. Every method runs under {@link
 * ContentChunks#lock}.
 */
final class CommittedContent {
  private final StoreReader reader;
  private final ContentChunks content;
  private final TreeSet<Long> committed = new TreeSet<>();

  /** The newest committed snapshot and the chunks it uses; {@code newestId} 0 when not kept. */
  private long newestId;

  private Set<ByteString> newest = Set.of();

  CommittedContent(StoreReader reader, ContentChunks content, Damage damage) {
    this.reader = reader;
    this.content = content;
    for (SnapshotManifest m :
        reader.newestFirst(
            Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE),
            Integer.MAX_VALUE,
            false,
            damage,
            StoreReader::parseManifestHead)) {
      committed.add(m.getSnapshotId());
    }
  }

  /**
   * Counts, in {@code batch}, the references of committing {@code id}, which uses {@code chunks}
   * and uploaded {@code uploaded}.
   */
  void commit(
      WriteBatch batch,
      long id,
      Map<ByteString, ContentChunks.Stored> chunks,
      Set<ByteString> uploaded)
      throws RocksDBException {
    Map<ByteString, Integer> delta =
        ChunkRuns.insert(
            chunks.keySet(), neighbour(committed.lower(id)), neighbour(committed.higher(id)));
    for (ByteString c : uploaded) {
      if (chunks.containsKey(c)) {
        delta.putIfAbsent(c, 0);
      }
    }
    content.count(batch, delta, chunks, c -> true);
  }

  /** The commit of {@code id} was written. */
  void committed(long id, Set<ByteString> chunks) {
    committed.add(id);
    if (id >= newestId) {
      newestId = id;
      newest = chunks;
    }
  }

  /**
   * Counts, in {@code batch}, the references that deleting {@code id} drops, deleting the bodies
   * nothing uses any more unless {@code inUse}; nothing if it is not COMPLETE.
   *
   * @return the number of chunk bodies deleted
   */
  int delete(WriteBatch batch, long id, Predicate<ByteString> inUse) throws RocksDBException {
    if (!committed.contains(id)) {
      return 0;
    }
    Map<ByteString, Integer> delta =
        ChunkRuns.remove(
            neighbour(id), neighbour(committed.lower(id)), neighbour(committed.higher(id)));
    return content.count(batch, delta, Map.of(), inUse);
  }

  /** The deletion of {@code id} was written. */
  void deleted(long id) {
    committed.remove(id);
    if (id == newestId) {
      newestId = 0;
      newest = Set.of();
    }
  }

  /**
   * Every chunk that the committed snapshots' readable metadata lists, with its length and CRC32C.
   */
  Map<ByteString, ContentChunks.Stored> listedAll() {
    Map<ByteString, ContentChunks.Stored> out = new java.util.HashMap<>();
    for (long id : committed) {
      reader.contentListed(id, out);
    }
    return out;
  }

  /** Every committed snapshot's chunks, in id order, counted: a migration's new counts. */
  ChunkRuns.Counts countAll() {
    List<Set<ByteString>> sets = new ArrayList<>();
    for (long id : committed) {
      sets.add(neighbour(id));
    }
    return ChunkRuns.count(sets);
  }

  /** The chunks {@code id} uses: empty for none, null when not known for certain. */
  private Set<ByteString> neighbour(Long id) {
    if (id == null) {
      return Set.of();
    }
    if (id == newestId) {
      return newest;
    }
    Optional<SnapshotManifest> m;
    try {
      m = reader.manifest(id);
    } catch (CorruptionException e) {
      return null;
    }
    if (m.isEmpty()) {
      return null;
    }
    int metas = (int) m.get().getPiecesList().stream().filter(WorkerPiece::hasMeta).count();
    return reader.contentIfKnown(id, metas);
  }
}
