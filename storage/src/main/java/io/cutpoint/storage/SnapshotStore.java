package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Durable home of snapshots, of the snapshot-id sequence and of the cluster epoch.
 *
 * <p>A snapshot is written in pieces as they arrive ({@link #createPending}, then state chunks,
 * channel recordings and worker metadata), and becomes COMPLETE only through {@link #commit}, which
 * flips the manifest in one synced write. Every stored piece carries a CRC32C that is checked on
 * every read: a mismatch throws {@link CorruptionException}, never returns data.
 *
 * <p>Implementations are thread-safe. Every method may throw {@link StoreException} when the
 * underlying storage fails; it names the store and the operation.
 */
public interface SnapshotStore extends AutoCloseable {

  /** Allocates a fresh snapshot id: increasing, never reused, also across restarts. */
  long allocateSnapshotId();

  /** The persisted cluster epoch (0 for a new store). */
  long epoch();

  /**
   * Persists the start of a rollback (synced) before anything else happens: the new epoch and the
   * target snapshot. {@link #rollbackInProgress()} reports it until {@link #finishRollback}.
   */
  void beginRollback(long newEpoch, long snapshotId);

  /** The rollback that was begun and not finished, if any (a coordinator restart resumes it). */
  Optional<RollbackIntent> rollbackInProgress();

  /** Marks the rollback to {@code epoch} finished (synced). */
  void finishRollback(long epoch);

  /** Records a new PENDING snapshot. */
  void createPending(SnapshotManifest manifest);

  /**
   * Stores one chunk of a worker's state; {@code crc32c} is that of {@code data}. Pieces of a
   * snapshot that is not PENDING are refused with {@link NotPendingException}, of an unknown one
   * with {@link NoSuchSnapshotException} (the same holds for the other {@code put} methods).
   *
   * @throws IllegalArgumentException if {@code crc32c} does not match {@code data}
   */
  void putStateChunk(long snapshotId, String workerId, int index, byte[] data, int crc32c);

  /**
   * Stores one chunk of a worker's state whose {@code crc32c} the caller has already checked
   * against {@code data} (the coordinator checks every uploaded chunk once): the store takes it as
   * the chunk's checksum and need not read the bytes again. A {@code crc32c} that does not match
   * makes a chunk that fails its check on every read. The default checks again, as {@link
   * #putStateChunk} does.
   */
  default void putCheckedStateChunk(
      long snapshotId, String workerId, int index, byte[] data, int crc32c) {
    putStateChunk(snapshotId, workerId, index, data, crc32c);
  }

  /**
   * Which of these content chunks (by SHA-256) the store already holds for a state; it keeps them
   * for the pending snapshot until the snapshot ends, so that its pieces may reference them without
   * sending their bytes again. The default holds none: a store without content addressing keeps
   * every chunk per snapshot, and then receives each one through {@link #putContentChunk}.
   *
   * @return for each hash, in order, whether the store holds it
   * @throws NotPendingException if the snapshot is no longer pending
   */
  default boolean[] holdChunks(long snapshotId, List<ByteString> sha256s) {
    return new boolean[sha256s.size()];
  }

  /**
   * Stores the chunk at {@code index} of a content-addressed state, named by {@code sha256}; the
   * caller checked its SHA-256 and CRC32C. A store with content addressing keeps one copy of each
   * chunk for every snapshot that uses it. The default stores it as the numbered chunk {@code
   * index} of this snapshot ({@link #putCheckedStateChunk}), which suits a store that {@link
   * #holdChunks holds} none: every chunk then arrives, in order.
   */
  default void putContentChunk(
      long snapshotId, String workerId, int index, ByteString sha256, byte[] data, int crc32c) {
    putCheckedStateChunk(snapshotId, workerId, index, data, crc32c);
  }

  /**
   * Makes the pieces written so far durable now, ahead of their snapshot's commit, so that the
   * commit's synced write has less left to write. A commit is durable without it; a store whose
   * writes are durable when they return does nothing (the default). May run on another thread than
   * the writes, at the same time as them.
   */
  default void syncPieces() {}

  /** Appends recorded messages of {@code channel} (in order; may be called several times). */
  void putChannelRecording(long snapshotId, ChannelId channel, List<InTransitMessage> messages);

  /** Stores a worker's counters and declarations. */
  void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta);

  /**
   * Forgets every piece one worker stored for a pending snapshot (its state chunks, its metadata
   * and the recordings of its incoming channels), so that a retried upload starts clean. The
   * default does nothing: implementations that keep pieces override it.
   *
   * @throws NotPendingException if the snapshot is no longer pending
   */
  default void discardPieces(long snapshotId, String workerId) {}

  /**
   * Flips a pending snapshot to COMPLETE with this manifest in one synced write batch, after
   * checking that every piece arrived; fills in the manifest's pieces and totals.
   *
   * @throws NotPendingException if it is not pending (e.g. committed twice)
   * @throws NoSuchSnapshotException if it does not exist
   * @throws StoreException if a piece is missing or does not match the manifest (it stays PENDING)
   *     or the write fails
   */
  void commit(SnapshotManifest complete);

  /**
   * Ends a pending snapshot as ABORTED or FAILED: stores the manifest with its reason (and
   * violations) and deletes its pieces.
   */
  void finish(SnapshotManifest abortedOrFailed);

  /** The manifest of a snapshot, if it exists. */
  Optional<SnapshotManifest> manifest(long snapshotId);

  /** Manifests, newest first, filtered by status (empty set = all). */
  List<SnapshotManifest> list(java.util.Set<SnapshotStatus> statuses);

  /** The newest COMPLETE snapshot, if any. */
  Optional<SnapshotManifest> latestComplete();

  /** A worker's counters; throws {@link CorruptionException} on a checksum mismatch. */
  Optional<LocalSnapshotMeta> workerMeta(long snapshotId, String workerId);

  /**
   * Streams a worker's state chunks in order to {@code sink}, each checked against its CRC32C.
   *
   * @return the number of chunks read
   * @throws CorruptionException on a checksum mismatch or a missing chunk (before passing it on)
   */
  int readState(long snapshotId, String workerId, Consumer<byte[]> sink);

  /** Receives a state's chunks, in order. */
  @FunctionalInterface
  interface StateChunks {
    /**
     * A chunk: the first {@code length} bytes of {@code data}, whose CRC32C is {@code crc32c}.
     * {@code data} is the receiver's from then on.
     */
    void accept(byte[] data, int length, int crc32c);
  }

  /**
   * As {@link #readState(long, String, Consumer)}, for a receiver that reuses its arrays: each
   * chunk's bytes are put into an array {@code arrays} gives (asked for at least their length), and
   * passed on with their CRC32C. A store that cannot read into given arrays passes its own.
   */
  default int readState(
      long snapshotId,
      String workerId,
      java.util.function.IntFunction<byte[]> arrays,
      StateChunks sink) {
    return readState(
        snapshotId,
        workerId,
        data -> sink.accept(data, data.length, io.cutpoint.api.Crc32c.of(data)));
  }

  /** The recorded messages of a channel, in order; checked against their CRC32C. */
  List<InTransitMessage> readChannel(long snapshotId, ChannelId channel);

  /**
   * The recorded messages of several channels of one snapshot, by channel, each in order and
   * checked as {@link #readChannel} does. Implementations may look the snapshot up once rather than
   * once per channel; the default simply calls {@link #readChannel} for each.
   */
  default java.util.SortedMap<ChannelId, List<InTransitMessage>> readChannels(
      long snapshotId, java.util.Collection<ChannelId> channels) {
    java.util.SortedMap<ChannelId, List<InTransitMessage>> out = new java.util.TreeMap<>();
    for (ChannelId channel : channels) {
      out.put(channel, readChannel(snapshotId, channel));
    }
    return out;
  }

  /**
   * Reads every piece of a complete snapshot and checks every checksum.
   *
   * @throws CorruptionException naming the first bad piece
   */
  void verifyIntegrity(long snapshotId);

  /**
   * As {@link #verifyIntegrity(long)}, except that the state bytes of a worker in {@code
   * heldByWorkers} need not be read when its piece's state is the one named there (its size and
   * CRC32C): that worker restores from its own copy and checks it against the piece itself. Its
   * metadata, channels and in-flight counts are checked all the same. A rollback uses this before
   * it halts the workers, so that a local recovery does not wait for a read of the state it does
   * not download. This default reads every state.
   *
   * @throws CorruptionException naming the first bad piece
   */
  default void verifyIntegrity(long snapshotId, java.util.Map<String, HeldState> heldByWorkers) {
    verifyIntegrity(snapshotId);
  }

  /** Pins or unpins; returns the updated manifest. */
  SnapshotManifest setPinned(long snapshotId, boolean pinned);

  /**
   * Deletes a snapshot and reclaims its space. Returns false if it did not exist.
   *
   * @throws NotPendingException if it is PENDING
   * @throws DeletionRefusedException if it is pinned or the target of the rollback in progress
   */
  boolean delete(long snapshotId);

  /**
   * Keeps the newest {@code keepComplete} complete snapshots plus pinned ones, deletes older
   * complete, aborted and failed ones beyond that, and returns the ids deleted.
   */
  List<Long> applyRetention(int keepComplete);

  /**
   * How many content chunks the store keeps, about; negative for a store that keeps chunks per
   * snapshot (the default).
   */
  default long contentChunks() {
    return -1;
  }

  /** Approximate bytes on disk. */
  long sizeBytes();

  /**
   * Snapshots found damaged since the store was opened (a piece or the manifest fails its checks),
   * by id, with what is damaged. Such a snapshot cannot be restored. The default knows of none.
   */
  default java.util.SortedMap<Long, String> damaged() {
    return java.util.Collections.emptySortedMap();
  }

  /**
   * Why the store cannot write (an I/O error such as a full disk), or empty while it can. The
   * default never fails.
   */
  default Optional<String> unavailable() {
    return Optional.empty();
  }

  /**
   * Tries to make an unavailable store write again; pending snapshots are lost by it.
   *
   * @return true if the store takes writes now
   */
  default boolean resume() {
    return true;
  }

  /** Releases every resource; safe to call twice. */
  @Override
  void close();

  /**
   * A rollback persisted by {@link #beginRollback}; {@code snapshotId} {@link #UNKNOWN_TARGET} when
   * the store found its record damaged (a rollback may have been half done).
   */
  record RollbackIntent(long epoch, long snapshotId) {
    /** The target of a rollback whose record was damaged: not known. */
    public static final long UNKNOWN_TARGET = 0;
  }
}
