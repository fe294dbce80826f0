package io.cutpoint.ha;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.StoreException;
import io.cutpoint.storage.StoreParts;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The content-addressed state chunks of an {@link S3SnapshotStore}: one object per chunk under
 * {@code chunks/}, shared by every snapshot and worker that uses it.
 *
 * <p>S3 has no atomic read-modify-write, so where the RocksDB store keeps a reference count per
 * chunk this store keeps none in the bucket. A chunk is in use while the metadata of a COMPLETE
 * snapshot lists it, or while a pending snapshot of this store holds or uploads it; {@link
 * #collect} deletes the others (mark and sweep). What each COMPLETE snapshot uses is read from its
 * metadata once and remembered. A chunk object is written before the pending snapshot records it,
 * so a commit never references a chunk that was not stored; it is deleted only by a collection,
 * under {@link #lock}, after a term check, and only if nothing listed above uses it. A collection
 * that cannot read what some COMPLETE snapshot uses deletes nothing.
 *
 * <p>Thread-safe: holds, uploads and the deciding step of a collection take {@link #lock};
 * collections run one at a time.
 */
final class ContentObjects {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(ContentObjects.class);

  /** A chunk as its object key names it. */
  record Chunk(ByteString sha256, int length, int crc32c) {}

  /** What a collection reads from the store. */
  interface Source {
    List<Long> ids();

    Optional<SnapshotManifest> manifest(long id);

    /** The content chunk list of one worker's state; empty if its metadata is missing. */
    Optional<List<ContentChunk>> content(long id, String workerId);

    /** The pending snapshots of this store. */
    Collection<StoreParts.Pending> pending();

    /** Throws {@link FencedException} if a newer leader took the store. */
    void checkTerm(String operation);
  }

  private final Object lock = new Object();
  private final Object oneCollection = new Object();
  private final Bucket bucket;
  private final ObjectKeys keys;
  private final String name;

  /** The chunks in the bucket, as far as this store knows: listed, or stored by it. */
  @GuardedBy("lock")
  private final Map<ByteString, Chunk> known = new HashMap<>();

  /** Chunks being written now, with how many writes of each. */
  @GuardedBy("lock")
  private final Map<ByteString, Integer> writing = new HashMap<>();

  /** Whether {@link #known} was filled by listing the bucket. */
  private volatile boolean listed;

  /** While a collection runs: every chunk held or stored since it began. */
  @GuardedBy("lock")
  private Set<ByteString> touched;

  /** The chunks each COMPLETE snapshot uses, as committed here or read from its metadata. */
  private final Map<Long, Set<ByteString>> used = new ConcurrentHashMap<>();

  ContentObjects(Bucket bucket, ObjectKeys keys, String name) {
    this.bucket = bucket;
    this.keys = keys;
    this.name = name;
  }

  /** How many chunks the store knows of. */
  long count() {
    synchronized (lock) {
      return known.size();
    }
  }

  /**
   * Which of {@code hashes} the bucket holds; {@code p} keeps each of those until it ends. The
   * first call of a store that no collection listed yet lists the bucket's chunks (a new leader
   * that deferred its collection), so that a failover does not upload every state again.
   */
  boolean[] hold(StoreParts.Pending p, List<ByteString> hashes) {
    if (!listed) {
      synchronized (oneCollection) { // no collection deletes between the listing and its use
        if (!listed) {
          Map<ByteString, Chunk> found = list();
          synchronized (lock) {
            known.putAll(found);
          }
          listed = true;
        }
      }
    }
    boolean[] held = new boolean[hashes.size()];
    synchronized (lock) {
      for (int i = 0; i < held.length; i++) {
        ByteString hash = hashes.get(i);
        Chunk c = p.usesContent(hash) ? null : known.get(hash);
        if (c != null) {
          p.hold(hash, c.length(), c.crc32c());
          touch(hash);
        }
        held[i] = c != null || p.usesContent(hash);
      }
    }
    return held;
  }

  /**
   * Stores a chunk for {@code p}, whose SHA-256 and CRC32C the caller checked; a chunk the bucket
   * holds already is not written again. {@code p} records it once it is stored.
   */
  void put(StoreParts.Pending p, Chunk chunk, byte[] data, String operation) {
    ByteString hash = chunk.sha256();
    boolean stored;
    synchronized (lock) {
      stored = known.containsKey(hash);
      writing.merge(hash, 1, Integer::sum);
      touch(hash);
    }
    boolean done = false;
    try {
      if (!stored) {
        bucket.put(keys.contentChunk(hash, chunk.length(), chunk.crc32c()), data, operation);
      }
      done = true;
    } finally {
      synchronized (lock) {
        writing.computeIfPresent(hash, (h, n) -> n == 1 ? null : n - 1);
        if (done) {
          known.put(hash, chunk);
          p.contentChunk(hash, chunk.length(), chunk.crc32c());
          // a collection that began while this PUT ran took p's chunks without this one
          touch(hash);
        }
      }
    }
  }

  /**
   * A read found the chunk missing or bad: it is no longer held for new snapshots, and the next
   * upload of the same bytes writes its object again (which repairs every snapshot that uses it).
   */
  void damaged(ByteString hash) {
    synchronized (lock) {
      known.remove(hash);
    }
  }

  /** A snapshot committed using {@code chunks}. */
  void committed(long id, Set<ByteString> chunks) {
    used.put(id, chunks);
  }

  /**
   * A COMPLETE snapshot is being deleted: what it used is no longer kept for it. Call before its
   * objects go, since what it used may have to be read from its metadata.
   *
   * @return the chunks it used, for {@link #release}
   */
  Set<ByteString> forget(SnapshotManifest m, Source source) {
    Set<ByteString> chunks = used.remove(m.getSnapshotId());
    if (chunks != null || m.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      return chunks == null ? Set.of() : chunks;
    }
    Set<ByteString> read = new HashSet<>();
    for (WorkerPiece piece : m.getPiecesList()) {
      try {
        source
            .content(m.getSnapshotId(), piece.getWorkerId())
            .ifPresent(list -> list.forEach(c -> read.add(c.getSha256())));
      } catch (StoreException e) {
        // unreadable or unreachable: its chunks stay until a collection, which lists them
        log.warn(
            "{}: the chunks of deleted snapshot {}, worker {} are not known ({}); a later"
                + " collection deletes them",
            name,
            m.getSnapshotId(),
            piece.getWorkerId(),
            e.getMessage());
      }
    }
    return read;
  }

  /**
   * Deletes those of {@code candidates} that no COMPLETE snapshot lists and no pending snapshot of
   * this store uses: what deleted or aborted snapshots used. Costs no listing of the bucket.
   *
   * @return how many chunk objects were deleted
   * @throws FencedException if a newer leader took the store (then nothing is deleted)
   */
  int release(Source source, Set<ByteString> candidates) {
    if (candidates.isEmpty()) {
      return 0;
    }
    return sweep(source, () -> candidates, null);
  }

  /**
   * Deletes every chunk object that no COMPLETE snapshot lists and no pending snapshot of this
   * store uses, and relearns which chunks the bucket holds, by listing them.
   *
   * @return how many chunk objects were deleted
   * @throws FencedException if a newer leader took the store (then nothing is deleted)
   */
  int collect(Source source) {
    Map<ByteString, Chunk> found = new HashMap<>();
    return sweep(
        source,
        () -> {
          found.putAll(list());
          return found.keySet();
        },
        found);
  }

  /** Takes what a listing {@code found} as what the bucket holds. */
  @GuardedBy("lock")
  private void relearn(Map<ByteString, Chunk> found) {
    // a chunk neither listed nor stored since the listing began is no longer there
    Set<ByteString> gone = new HashSet<>(known.keySet());
    gone.removeAll(found.keySet());
    gone.removeAll(touched);
    known.keySet().removeAll(gone);
    known.putAll(found);
    listed = true;
  }

  /**
   * The one way chunks are deleted. Everything a pending snapshot uses when it starts, or holds or
   * stores after, is {@link #touched} and kept; {@code candidates} is read after that, then the
   * catalog; the deciding and the deleting happen under {@link #lock}, after a term check.
   *
   * @param listed what {@code candidates} listed, to {@link #relearn}; null if it listed nothing
   */
  private int sweep(
      Source source, Supplier<Set<ByteString>> candidates, Map<ByteString, Chunk> listed) {
    synchronized (oneCollection) {
      synchronized (lock) {
        touched = new HashSet<>();
        for (StoreParts.Pending p : source.pending()) {
          touched.addAll(p.contentInUse());
        }
      }
      try {
        Set<ByteString> maybe = candidates.get();
        Optional<Set<ByteString>> live = live(source);
        synchronized (lock) {
          if (listed != null) {
            relearn(listed);
          }
          if (live.isEmpty()) {
            return 0;
          }
          List<Chunk> garbage = new ArrayList<>();
          for (ByteString h : maybe) {
            Chunk c = known.get(h);
            if (c != null
                && !live.get().contains(h)
                && !touched.contains(h)
                && !writing.containsKey(h)) {
              garbage.add(c);
            }
          }
          if (garbage.isEmpty()) {
            return 0;
          }
          source.checkTerm("delete unused content chunks");
          // forgotten first: a delete that fails may still have removed some of them
          garbage.forEach(c -> known.remove(c.sha256()));
          bucket.delete(
              garbage.stream()
                  .map(c -> keys.contentChunk(c.sha256(), c.length(), c.crc32c()))
                  .toList(),
              "delete " + garbage.size() + " unused content chunks");
          log.debug("{}: deleted {} unused content chunks", name, garbage.size());
          return garbage.size();
        }
      } finally {
        synchronized (lock) {
          touched = null;
        }
      }
    }
  }

  @GuardedBy("lock")
  private void touch(ByteString hash) {
    if (touched != null) {
      touched.add(hash);
    }
  }

  private Map<ByteString, Chunk> list() {
    Map<ByteString, Chunk> listed = new HashMap<>();
    for (String key : bucket.keys(keys.chunksRoot())) {
      Chunk c = keys.chunkOf(key);
      if (c != null) {
        listed.put(c.sha256(), c);
      } else {
        log.warn("{}: {} is not a content chunk's name; left alone", name, key);
      }
    }
    return listed;
  }

  /** Every chunk a COMPLETE snapshot lists; empty if what one of them uses cannot be read. */
  private Optional<Set<ByteString>> live(Source source) {
    Set<ByteString> live = new HashSet<>();
    for (long id : source.ids()) {
      Set<ByteString> chunks = used.get(id);
      if (chunks == null) {
        try {
          Optional<SnapshotManifest> m = source.manifest(id);
          if (m.isEmpty() || m.get().getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
            SnapshotStatus status = m.map(SnapshotManifest::getStatus).orElse(null);
            if (status == SnapshotStatus.SNAPSHOT_STATUS_ABORTED
                || status == SnapshotStatus.SNAPSHOT_STATUS_FAILED) {
              used.putIfAbsent(id, Set.of()); // it ended without pieces: no need to read it again
            }
            continue;
          }
          chunks = new HashSet<>();
          for (WorkerPiece piece : m.get().getPiecesList()) {
            Optional<List<ContentChunk>> content = source.content(id, piece.getWorkerId());
            if (content.isEmpty()) {
              return unknown(id, "worker " + piece.getWorkerId() + " has no metadata");
            }
            for (ContentChunk c : content.get()) {
              chunks.add(c.getSha256());
            }
          }
          used.putIfAbsent(id, Set.copyOf(chunks));
        } catch (CorruptionException e) {
          return unknown(id, e.getMessage());
        }
      }
      live.addAll(chunks);
    }
    return Optional.of(live);
  }

  private Optional<Set<ByteString>> unknown(long id, String why) {
    log.warn(
        "{}: every content chunk is kept: the chunks snapshot {} uses cannot be read ({})",
        name,
        id,
        why);
    return Optional.empty();
  }
}
