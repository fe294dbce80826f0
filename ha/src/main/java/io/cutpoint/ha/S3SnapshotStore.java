package io.cutpoint.ha;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.HeldState;
import io.cutpoint.storage.NoSuchSnapshotException;
import io.cutpoint.storage.NotPendingException;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import io.cutpoint.storage.StoreParts;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link SnapshotStore} with its pieces as immutable objects in an S3-compatible object store and
 * its catalog (manifests, epoch, rollback intent, snapshot ids) in ZooKeeper ({@link Catalog}).
 * Every catalog write is one ZooKeeper transaction that checks the store's {@link LeaderTerm}
 * first, so a store opened under a term that a newer leader superseded can never create, commit,
 * finish, delete or roll back anything: it gets a {@link FencedException}. The layout, the failures
 * and what is not wired yet are in {@code storage.md}, "Object storage and ZooKeeper".
 *
 * <p>Thread-safe, like {@code RocksSnapshotStore}: pieces of one snapshot are written concurrently;
 * commit and finish wait for the pieces in progress and refuse later ones. The caller owns the
 * {@link S3Client} and the {@link CuratorFramework}; {@link #close()} does not close them.
 */
public final class S3SnapshotStore implements SnapshotStore {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(S3SnapshotStore.class);

  /**
   * Where the store lives.
   *
   * @param bucket the S3 bucket (it must exist)
   * @param prefix key prefix of every object, without a trailing slash; may be empty
   * @param catalogPath ZooKeeper path of the catalog and the leader term, e.g. {@code /cutpoint}
   */
  public record Location(String bucket, String prefix, String catalogPath) {
    public Location {
      if (prefix.endsWith("/")) {
        throw new IllegalArgumentException("prefix without a trailing '/', got " + prefix);
      }
      if (!catalogPath.startsWith("/") || catalogPath.endsWith("/")) {
        throw new IllegalArgumentException(
            "catalog path must start with '/' and not end with it, got " + catalogPath);
      }
    }

    @Override
    public String toString() {
      return "s3://" + bucket + "/" + prefix + " (catalog zk:" + catalogPath + ")";
    }
  }

  /**
   * How the store writes.
   *
   * @param idBlock snapshot ids reserved by one catalog write of the high-water mark
   * @param partSize a framed piece larger than this goes up as a multipart upload of such parts
   * @param clock stamps the manifests that opening aborts
   */
  public record Options(int idBlock, int partSize, Clock clock) {
    public static final Options DEFAULT = new Options(100, 8 << 20, Clock.systemUTC());

    public Options {
      if (idBlock < 1) {
        throw new IllegalArgumentException("idBlock must be at least 1, got " + idBlock);
      }
    }
  }

  private final String name;
  private final Bucket bucket;
  private final ObjectKeys keys;
  private final Catalog catalog;
  private final PieceReader reader;
  private final Leftovers leftovers;
  private final Options options;
  private final ConcurrentSkipListMap<Long, String> damaged = new ConcurrentSkipListMap<>();
  private final PendingPieces pieces;
  private final ContentObjects content;
  private final ReentrantReadWriteLock guard = new ReentrantReadWriteLock();
  private final Object manifestWrites = new Object();
  private final Object idLock = new Object();
  private List<Long> abortedOnOpen = List.of();
  private List<Long> removedOnOpen = List.of();
  private volatile int collectedOnOpen;
  private volatile long reservedOnOpen; // the highest id an earlier leader could have used
  private long nextId;
  private long idLimit;
  private volatile boolean fenced;
  private boolean closed;

  private S3SnapshotStore(
      S3Client s3, CuratorFramework zk, Location where, LeaderTerm term, Options options) {
    this.name = "snapshot store " + where;
    this.options = options;
    this.keys = new ObjectKeys(where.prefix());
    this.bucket = new Bucket(s3, where.bucket(), options.partSize(), name);
    this.catalog = new Catalog(zk, where.catalogPath(), term, name);
    this.reader = new PieceReader(bucket, keys);
    this.leftovers = new Leftovers(catalog, bucket, keys, damaged, name);
    this.content = new ContentObjects(bucket, keys, name);
    this.pieces = new PendingPieces(bucket, keys, content, catalog, () -> fenced, name);
  }

  /** What a collection of content chunks reads: the catalog, the metadata, the pending ones. */
  private final ContentObjects.Source contentSource =
      new ContentObjects.Source() {
        @Override
        public List<Long> ids() {
          return catalog.ids();
        }

        @Override
        public Optional<SnapshotManifest> manifest(long id) {
          return catalog.manifest(id).map(Catalog.Versioned::value);
        }

        @Override
        public Optional<List<ContentChunk>> content(long id, String workerId) {
          return reader.workerMeta(id, workerId).map(LocalSnapshotMeta::getContentList);
        }

        @Override
        public Collection<StoreParts.Pending> pending() {
          return pieces.all();
        }

        @Override
        public void checkTerm(String operation) {
          fenceCheck(operation);
        }
      };

  /**
   * Opens the store under {@code term}: aborts the snapshots that an earlier leader left PENDING
   * and removes the objects of every snapshot that did not commit.
   *
   * @throws FencedException if {@code term} is no longer the current term
   */
  public static S3SnapshotStore open(
      S3Client s3, CuratorFramework zk, Location where, LeaderTerm term, Options options) {
    S3SnapshotStore store = openDeferringSweep(s3, zk, where, term, options);
    // nothing writes yet: every id may go, also one that no leader could have reserved
    store.removedOnOpen = store.leftovers.sweep(Set.of(), Long.MAX_VALUE);
    store.collectedOnOpen = store.content.collect(store.contentSource);
    return store;
  }

  /**
   * As {@link #open}, but leaves the objects of snapshots that did not commit to {@link
   * #sweepLeftovers()}: a new leader calls it once it serves, so that walking the bucket is not on
   * the path from the election to its first commit.
   *
   * @throws FencedException if {@code term} is no longer the current term
   */
  public static S3SnapshotStore openDeferringSweep(
      S3Client s3, CuratorFramework zk, Location where, LeaderTerm term, Options options) {
    Catalog.ensure(zk, where.catalogPath());
    S3SnapshotStore store = new S3SnapshotStore(s3, zk, where, term, options);
    store.recover();
    return store;
  }

  private void recover() {
    catalog.checkTerm("open");
    List<Long> ids = catalog.ids();
    abortedOnOpen = leftovers.abortPending(ids, options.clock());
    long highest = ids.isEmpty() ? 0 : ids.get(ids.size() - 1);
    // ids below the reserved mark may have been handed out by an earlier leader; this term's
    // start at the mark or above (allocateSnapshotId)
    reservedOnOpen = Math.max(highest, catalog.nextId().value() - 1);
    synchronized (idLock) {
      nextId = highest + 1;
      idLimit = nextId; // the first allocation reserves a block above the persisted mark
    }
  }

  /**
   * Removes the objects of every snapshot that is not COMPLETE (nor damaged) among the ids that
   * earlier leaders could have reserved when the store was opened, then the content chunks that no
   * snapshot uses. Every snapshot of this store's term has a higher id, so this may run on any
   * thread while the store works.
   *
   * @return the ids whose objects were removed
   */
  public List<Long> sweepLeftovers() {
    return guarded(
        "remove the objects of uncommitted snapshots",
        () -> {
          List<Long> removed = leftovers.sweep(Set.of(), reservedOnOpen);
          collectedOnOpen = content.collect(contentSource);
          return removed;
        });
  }

  /**
   * How many content chunks that no snapshot used opening deleted (or {@link #sweepLeftovers}, when
   * opening deferred it): those of snapshots that never committed and of deleted ones.
   */
  public int contentChunksCollectedOnOpen() {
    return collectedOnOpen;
  }

  /** The snapshots that were PENDING when the store was opened and are now ABORTED. */
  public List<Long> abortedOnOpen() {
    return abortedOnOpen;
  }

  /** The snapshots whose objects opening removed because they never committed. */
  public List<Long> removedOnOpen() {
    return removedOnOpen;
  }

  /** The term this store writes under. */
  public LeaderTerm term() {
    return catalog.term();
  }

  @Override
  public long allocateSnapshotId() {
    return guarded(
        "allocate snapshot id",
        () -> {
          synchronized (idLock) {
            if (nextId >= idLimit) {
              Catalog.Versioned<Long> mark = catalog.nextId();
              long start = Math.max(mark.value(), nextId);
              long limit = start + options.idBlock();
              write("reserve snapshot ids", List.of(catalog.setNextId(limit, mark.version())));
              nextId = start;
              idLimit = limit;
            }
            return nextId++;
          }
        });
  }

  /**
   * The highest id this term or an earlier one may have used. A higher one is a newer leader's: a
   * deposed leader that reads the catalog from a lagging ZooKeeper server may not see its manifest,
   * and must not take its objects for leftovers.
   */
  private long highestKnownId() {
    synchronized (idLock) {
      return Math.max(reservedOnOpen, idLimit - 1);
    }
  }

  @Override
  public long epoch() {
    return guarded("read epoch", () -> catalog.epoch().value());
  }

  @Override
  public void beginRollback(long newEpoch, long snapshotId) {
    run(
        "begin rollback",
        () -> {
          synchronized (manifestWrites) {
            Catalog.Versioned<SnapshotManifest> target = existing(snapshotId, "begin rollback");
            if (target.value().getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
              throw new NotPendingException(
                  snapshotId, target.value().getStatus(), "roll back (needs COMPLETE)");
            }
            Catalog.Versioned<Long> epoch = catalog.epoch();
            if (newEpoch <= epoch.value()) {
              throw new IllegalArgumentException(
                  "a rollback needs a new epoch above the current "
                      + epoch.value()
                      + ", got "
                      + newEpoch);
            }
            int intentVersion = catalog.rollback().version();
            // the target's version is checked too: it cannot be deleted or changed meanwhile
            RollbackIntent intent = new RollbackIntent(newEpoch, snapshotId);
            writeOnce(
                "begin rollback to snapshot " + snapshotId,
                List.of(
                    catalog.checkManifest(snapshotId, target.version()),
                    catalog.setEpoch(newEpoch, epoch.version()),
                    catalog.setRollback(Optional.of(intent), intentVersion)),
                () ->
                    catalog.epoch().value() == newEpoch
                        && catalog.rollback().value().equals(Optional.of(intent)));
          }
        });
  }

  @Override
  public Optional<RollbackIntent> rollbackInProgress() {
    return guarded("read rollback intent", () -> catalog.rollback().value());
  }

  @Override
  public void finishRollback(long epoch) {
    run(
        "finish rollback",
        () -> {
          synchronized (manifestWrites) {
            Catalog.Versioned<Optional<RollbackIntent>> intent = catalog.rollback();
            if (intent.value().isEmpty()) {
              return;
            }
            if (intent.value().get().epoch() != epoch) {
              throw new IllegalStateException(
                  "the rollback in progress is to epoch "
                      + intent.value().get().epoch()
                      + ", not "
                      + epoch);
            }
            writeOnce(
                "finish rollback to epoch " + epoch,
                List.of(catalog.setRollback(Optional.empty(), intent.version())),
                () -> catalog.rollback().value().isEmpty());
          }
        });
  }

  @Override
  public void createPending(SnapshotManifest manifest) {
    long id = manifest.getSnapshotId();
    if (id < 1) {
      throw new IllegalArgumentException("snapshot ids start at 1, got " + id);
    }
    if (manifest.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
      throw new IllegalArgumentException(
          "createPending needs a PENDING manifest, got " + manifest.getStatus());
    }
    String operation = "create pending snapshot " + id;
    run(
        operation,
        () -> {
          synchronized (manifestWrites) {
            try {
              writeOnce(
                  operation, List.of(catalog.createManifest(manifest)), () -> holds(manifest));
            } catch (Catalog.Conflict e) {
              if (e.code == KeeperException.Code.NODEEXISTS) {
                throw new NotPendingException(
                    id, existing(id, operation).value().getStatus(), "create pending snapshot");
              }
              throw e;
            }
            pieces.begin(id);
          }
        });
  }

  @Override
  public void putStateChunk(long snapshotId, String workerId, int index, byte[] data, int crc32c) {
    run(
        "store a state chunk of snapshot " + snapshotId,
        () -> pieces.putStateChunk(snapshotId, workerId, index, data, crc32c));
  }

  @Override
  public boolean[] holdChunks(long snapshotId, List<ByteString> sha256s) {
    String operation = "hold content chunks for snapshot " + snapshotId;
    sha256s.forEach(h -> StoreParts.requireSha256(h, operation));
    return guarded(operation, () -> pieces.hold(snapshotId, sha256s));
  }

  @Override
  public void putContentChunk(
      long snapshotId, String workerId, int index, ByteString sha256, byte[] data, int crc32c) {
    String operation = StoreParts.storeContentChunk(snapshotId, workerId, index, sha256);
    StoreParts.requireSha256(sha256, operation);
    run(operation, () -> pieces.putContentChunk(snapshotId, workerId, index, sha256, data, crc32c));
  }

  @Override
  public void putChannelRecording(
      long snapshotId, ChannelId channel, List<InTransitMessage> messages) {
    run(
        "store a recording of snapshot " + snapshotId,
        () -> pieces.putChannelRecording(snapshotId, channel, messages));
  }

  @Override
  public void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta) {
    run("store metadata of snapshot " + snapshotId, () -> pieces.putWorkerMeta(snapshotId, meta));
  }

  @Override
  public void discardPieces(long snapshotId, String workerId) {
    run("discard pieces of snapshot " + snapshotId, () -> pieces.discard(snapshotId, workerId));
  }

  @Override
  public void commit(SnapshotManifest complete) {
    if (complete.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      throw new IllegalArgumentException(
          "commit needs a COMPLETE manifest, got " + complete.getStatus());
    }
    long id = complete.getSnapshotId();
    String operation = "commit snapshot " + id;
    Set<ByteString> unused = new java.util.HashSet<>();
    run(
        operation,
        () -> {
          pieces.end(
              id,
              "commit",
              manifestWrites,
              p -> {
                SnapshotManifest filled = p.completed(complete);
                Catalog.Versioned<SnapshotManifest> current = existing(id, operation);
                if (current.value().getStatus() != SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
                  // a newer leader aborted it: say that this store is fenced, the more useful
                  // answer
                  fenceCheck(operation);
                  throw new NotPendingException(id, current.value().getStatus(), "commit");
                }
                writeOnce(
                    operation,
                    List.of(catalog.setManifest(filled, current.version())),
                    () -> holds(filled));
                content.committed(id, p.referenced());
                unused.addAll(p.contentInUse());
                unused.removeAll(p.referenced());
              });
          // after the snapshot left the pending ones: its own holds no longer keep them
          releaseContent(operation, unused);
        });
  }

  @Override
  public void finish(SnapshotManifest abortedOrFailed) {
    SnapshotStatus status = abortedOrFailed.getStatus();
    if (status != SnapshotStatus.SNAPSHOT_STATUS_ABORTED
        && status != SnapshotStatus.SNAPSHOT_STATUS_FAILED) {
      throw new IllegalArgumentException(
          "finish needs an ABORTED or FAILED manifest, got " + status);
    }
    long id = abortedOrFailed.getSnapshotId();
    SnapshotManifest kept = abortedOrFailed.toBuilder().clearPieces().build();
    String operation = "finish snapshot " + id;
    run(
        operation,
        () -> {
          synchronized (manifestWrites) {
            if (!pieces.contains(id) && catalog.manifest(id).isEmpty()) {
              // Never created: keep the manifest anyway so operators can see why it ended.
              writeOnce(operation, List.of(catalog.createManifest(kept)), () -> holds(kept));
              return;
            }
          }
          Set<ByteString> used = new java.util.HashSet<>();
          pieces.end(
              id,
              "finish",
              manifestWrites,
              p -> {
                writeOnce(
                    operation,
                    List.of(catalog.setManifest(kept, existing(id, operation).version())),
                    () -> holds(kept));
                used.addAll(p.contentInUse());
              });
          bucket.deleteAll(keys.snapshot(id), "delete pieces of finished snapshot " + id);
          releaseContent(operation, used);
        });
  }

  @Override
  public Optional<SnapshotManifest> manifest(long snapshotId) {
    return guarded(
        "read manifest",
        () -> marking(snapshotId, () -> catalog.manifest(snapshotId).map(v -> mark(v.value()))));
  }

  @Override
  public List<SnapshotManifest> list(Set<SnapshotStatus> statuses) {
    return guarded("list snapshots", () -> newestFirst(statuses, Integer.MAX_VALUE, true));
  }

  @Override
  public Optional<SnapshotManifest> latestComplete() {
    return guarded(
        "find latest complete snapshot",
        () ->
            newestFirst(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE), 1, false).stream()
                .findFirst());
  }

  private List<SnapshotManifest> newestFirst(
      Set<SnapshotStatus> statuses, int limit, boolean withDamaged) {
    List<Long> ids = catalog.ids();
    List<SnapshotManifest> out = new ArrayList<>();
    for (int i = ids.size() - 1; i >= 0 && out.size() < limit; i--) {
      long id = ids.get(i);
      Optional<SnapshotManifest> m;
      try {
        m = catalog.manifest(id).map(Catalog.Versioned::value);
      } catch (CorruptionException e) {
        damaged.putIfAbsent(id, "manifest unreadable: " + e.getMessage());
        if (withDamaged && statuses.isEmpty()) {
          out.add(mark(SnapshotManifest.newBuilder().setSnapshotId(id).build()));
        } else {
          log.error("Skipping a damaged manifest: {}", e.getMessage());
        }
        continue;
      }
      if (m.isPresent() && (statuses.isEmpty() || statuses.contains(m.get().getStatus()))) {
        out.add(mark(m.get()));
      }
    }
    return out;
  }

  @Override
  public Optional<LocalSnapshotMeta> workerMeta(long snapshotId, String workerId) {
    return guarded(
        "read worker metadata",
        () -> marking(snapshotId, () -> reader.workerMeta(snapshotId, workerId)));
  }

  @Override
  public int readState(long snapshotId, String workerId, Consumer<byte[]> sink) {
    return guarded(
        "read state",
        () ->
            marking(
                snapshotId,
                () ->
                    reader.readState(
                        Optional.of(existing(snapshotId, "read state").value()),
                        snapshotId,
                        workerId,
                        sink)));
  }

  @Override
  public List<InTransitMessage> readChannel(long snapshotId, ChannelId channel) {
    return readChannels(snapshotId, List.of(channel)).get(channel);
  }

  @Override
  public SortedMap<ChannelId, List<InTransitMessage>> readChannels(
      long snapshotId, Collection<ChannelId> channels) {
    return guarded(
        "read channels",
        () ->
            marking(
                snapshotId,
                () -> {
                  boolean complete =
                      existing(snapshotId, "read channels").value().getStatus()
                          == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE;
                  SortedMap<ChannelId, List<InTransitMessage>> out = new TreeMap<>();
                  for (ChannelId channel : channels) {
                    out.put(channel, reader.readChannel(snapshotId, channel, complete));
                  }
                  return out;
                }));
  }

  @Override
  public void verifyIntegrity(long snapshotId) {
    verifyIntegrity(snapshotId, Map.of());
  }

  @Override
  public void verifyIntegrity(long snapshotId, Map<String, HeldState> heldByWorkers) {
    run(
        "verify snapshot " + snapshotId,
        () ->
            marking(
                snapshotId,
                () -> {
                  reader.verify(existing(snapshotId, "verify").value(), heldByWorkers);
                  return null;
                }));
  }

  @Override
  public SnapshotManifest setPinned(long snapshotId, boolean pinned) {
    return guarded(
        "pin snapshot " + snapshotId,
        () -> {
          synchronized (manifestWrites) {
            Catalog.Versioned<SnapshotManifest> m = existing(snapshotId, "pin");
            if (m.value().getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
              throw new NotPendingException(
                  snapshotId, m.value().getStatus(), "pin (needs a finished one)");
            }
            SnapshotManifest updated = m.value().toBuilder().setPinned(pinned).build();
            writeOnce(
                "pin snapshot " + snapshotId,
                List.of(catalog.setManifest(updated, m.version())),
                () -> holds(updated));
            return updated;
          }
        });
  }

  @Override
  public boolean delete(long snapshotId) {
    String operation = "delete snapshot " + snapshotId;
    return guarded(
        operation,
        () -> {
          Set<ByteString> used;
          synchronized (manifestWrites) {
            Optional<Catalog.Versioned<SnapshotManifest>> m = catalog.manifest(snapshotId);
            if (m.isEmpty()) {
              return false;
            }
            StoreParts.refuseDeletion(m.get().value(), catalog.rollback().value());
            writeOnce(
                operation,
                List.of(catalog.deleteManifest(snapshotId, m.get().version())),
                () -> catalog.manifest(snapshotId).isEmpty());
            used = content.forget(m.get().value(), contentSource);
          }
          bucket.deleteAll(keys.snapshot(snapshotId), operation);
          releaseContent(operation, used);
          return true;
        });
  }

  @Override
  public List<Long> applyRetention(int keepComplete) {
    return guarded(
        "apply retention",
        () -> {
          List<Long> deleted;
          Set<ByteString> used = new java.util.HashSet<>();
          synchronized (manifestWrites) {
            List<StoreParts.RetentionEntry> entries = new ArrayList<>();
            List<CuratorOp> ops = new ArrayList<>();
            java.util.Map<Long, Catalog.Versioned<SnapshotManifest>> found =
                new java.util.HashMap<>();
            List<Long> ids = catalog.ids();
            for (int i = ids.size() - 1; i >= 0; i--) {
              long id = ids.get(i);
              try {
                catalog
                    .manifest(id)
                    .ifPresent(
                        v -> {
                          entries.add(
                              new StoreParts.RetentionEntry(
                                  id, v.value().getStatus(), v.value().getPinned()));
                          found.put(id, v);
                        });
              } catch (CorruptionException e) {
                damaged.putIfAbsent(id, "manifest unreadable: " + e.getMessage());
                log.error("Retention skips a damaged manifest: {}", e.getMessage());
              }
            }
            Set<Long> protectedIds =
                catalog.rollback().value().map(r -> Set.of(r.snapshotId())).orElse(Set.of());
            deleted = StoreParts.toDelete(entries, keepComplete, protectedIds);
            for (long id : deleted) {
              ops.add(catalog.deleteManifest(id, found.get(id).version()));
            }
            if (!ops.isEmpty()) {
              write("retention: delete snapshots " + deleted, ops);
            }
            for (long id : deleted) {
              used.addAll(content.forget(found.get(id).value(), contentSource));
            }
          }
          for (long id : deleted) {
            bucket.deleteAll(keys.snapshot(id), "retention: delete snapshot " + id);
          }
          leftovers.sweep(pieces.ids(), highestKnownId());
          releaseContent("apply retention", used);
          return deleted;
        });
  }

  @Override
  public long sizeBytes() {
    return guarded(
        "measure size", () -> bucket.bytes(keys.snapshotsRoot()) + bucket.bytes(keys.chunksRoot()));
  }

  @Override
  public long contentChunks() {
    return content.count();
  }

  @Override
  public SortedMap<Long, String> damaged() {
    return java.util.Collections.unmodifiableSortedMap(damaged);
  }

  @Override
  public Optional<String> unavailable() {
    Lock lock = guard.readLock();
    lock.lock();
    try {
      return closed
          ? Optional.of("closed")
          : fenced ? Optional.of("fenced: a newer leader term was taken") : Optional.empty();
    } finally {
      lock.unlock();
    }
  }

  /**
   * @throws FencedException when a newer leader term was taken: also when this store learned it on
   *     a path that does not throw it (a content release after a commit, a leftover sweep), so that
   *     whoever watches the store's health hears of it and gives up the lead
   */
  @Override
  public boolean resume() {
    if (closed) {
      return false;
    }
    if (fenced) {
      catalog.checkTerm("resume writing");
    }
    return !fenced;
  }

  /** Forgets the pending snapshots; does not close the S3 or ZooKeeper clients. */
  @Override
  public void close() {
    Lock lock = guard.writeLock();
    lock.lock();
    try {
      closed = true;
      pieces.clear();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return name;
  }

  // ---- internals ----

  /** A catalog write under this store's term; remembers being fenced. */
  private void write(String operation, List<CuratorOp> ops) {
    try {
      catalog.write(operation, ops);
    } catch (FencedException e) {
      fenced = true;
      throw e;
    }
  }

  /**
   * As {@link #write}, for a write whose result can be recognised: the ZooKeeper client retries a
   * transaction whose answer was lost, and a retry of one that went through the first time fails on
   * its own result (a node it created exists, a version it changed moved on). A conflict after
   * which {@code applied} finds the result is then this write's success.
   */
  private void writeOnce(String operation, List<CuratorOp> ops, BooleanSupplier applied) {
    try {
      write(operation, ops);
    } catch (Catalog.Conflict e) {
      if (!applied.getAsBoolean()) {
        throw e;
      }
      log.info("{}: {} went through on an earlier try: {}", name, operation, e.getMessage());
    }
  }

  /** Whether the catalog holds exactly {@code m} as the manifest of its snapshot. */
  private boolean holds(SnapshotManifest m) {
    return catalog.manifest(m.getSnapshotId()).map(v -> v.value().equals(m)).orElse(false);
  }

  /**
   * Deletes those of {@code used} that no snapshot uses any more, after {@code operation} went
   * through: a failure is logged, not thrown, and the next collection (at the latest, the next
   * leader's open) deletes them.
   */
  private void releaseContent(String operation, Set<ByteString> used) {
    try {
      content.release(contentSource, used);
    } catch (StoreException e) {
      log.warn(
          "{}: after {}, unused content chunks stay for now: {}", name, operation, e.getMessage());
    }
  }

  /** Throws {@link FencedException} (and remembers it) if a newer term was taken. */
  private void fenceCheck(String operation) {
    try {
      catalog.checkTerm(operation);
    } catch (FencedException e) {
      fenced = true;
      throw e;
    }
  }

  private SnapshotManifest mark(SnapshotManifest m) {
    String reason = damaged.get(m.getSnapshotId());
    return reason == null ? m : m.toBuilder().setDamage(reason).build();
  }

  /** Runs a read of one snapshot; a piece that fails its checks marks the snapshot damaged. */
  private <T> T marking(long snapshotId, Supplier<T> read) {
    try {
      return read.get();
    } catch (CorruptionException e) {
      boolean gone;
      try {
        gone = catalog.manifest(snapshotId).isEmpty();
      } catch (StoreException unknown) {
        gone = false; // the damage stands: it is what the read found
      }
      if (gone) {
        throw new NoSuchSnapshotException(snapshotId, "read snapshot (deleted while it was read)");
      }
      damaged.putIfAbsent(snapshotId, e.getMessage());
      if (e instanceof io.cutpoint.storage.ChunkDamageException c) {
        content.damaged(c.sha256()); // new snapshots upload it again, which repairs this one
      }
      throw e;
    }
  }

  private Catalog.Versioned<SnapshotManifest> existing(long id, String operation) {
    return catalog.manifest(id).orElseThrow(() -> new NoSuchSnapshotException(id, operation));
  }

  private void run(String operation, Runnable body) {
    guarded(
        operation,
        () -> {
          body.run();
          return null;
        });
  }

  private <T> T guarded(String operation, Supplier<T> body) {
    Lock lock = guard.readLock();
    lock.lock();
    try {
      if (closed) {
        throw new StoreException(name + " is closed: cannot " + operation);
      }
      return body.get();
    } finally {
      lock.unlock();
    }
  }
}
