package io.cutpoint.storage;

import com.google.protobuf.ByteString;
import io.cutpoint.api.Crc32cCombine;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;

/**
 * What another {@link SnapshotStore} shares with {@link RocksSnapshotStore}, so that each rule
 * exists once: the CRC32C frame of every stored value ({@code ValueFrames}), the commit checks of a
 * pending snapshot ({@code PieceLedger}) and the retention rule ({@code RetentionPlan}). The object
 * store of {@code cutpoint-ha} uses it; those classes stay package-private, so this is the one
 * public door to them.
 */
public final class StoreParts {
  private StoreParts() {}

  /**
   * The copy of a worker's meta that a manifest's piece carries: without its content chunk list,
   * which the stored piece keeps (a manifest stays small however large the states).
   */
  public static LocalSnapshotMeta manifestMeta(LocalSnapshotMeta meta) {
    return meta.getContentCount() == 0 ? meta : meta.toBuilder().clearContent().build();
  }

  /**
   * Checks a verified piece's recorded incoming messages against the count its commit recorded.
   *
   * @throws CorruptionException naming the snapshot and worker if they differ
   */
  public static void checkInFlight(long snapshotId, WorkerPiece piece, long stored) {
    if (stored != piece.getInFlightMessages()) {
      throw new CorruptionException(
          "snapshot "
              + snapshotId
              + ", worker "
              + piece.getWorkerId()
              + ", incoming channels: "
              + stored
              + " recorded messages stored, "
              + piece.getInFlightMessages()
              + " committed");
    }
  }

  /**
   * Names a content chunk in errors: its position in a worker's state and the start of its hash.
   */
  public static String contentChunk(int index, ByteString sha256) {
    return ContentChunks.describe(index, sha256);
  }

  /** The operation of storing a content chunk, as errors name it. */
  public static String storeContentChunk(
      long snapshotId, String workerId, int index, ByteString sha256) {
    return "store snapshot "
        + snapshotId
        + ", worker "
        + workerId
        + ", "
        + ContentChunks.describe(index, sha256);
  }

  /**
   * Refuses a hash that is not as long as a SHA-256.
   *
   * @throws IllegalArgumentException naming {@code operation}
   */
  public static void requireSha256(ByteString hash, String operation) {
    if (hash.size() != ContentChunks.HASH_BYTES) {
      throw new IllegalArgumentException(
          operation + ": a SHA-256 has " + ContentChunks.HASH_BYTES + " bytes, got " + hash.size());
    }
  }

  /**
   * Why a meta's content chunk list cannot describe its state, or empty (also when it has none):
   * every hash is a SHA-256, every length is 1 to {@code maxChunkBytes}, there are at most {@code
   * maxChunks}, and their lengths and CRC32Cs add up to the state's size and CRC32C.
   */
  public static java.util.Optional<String> contentProblem(
      LocalSnapshotMeta meta, int maxChunkBytes, int maxChunks) {
    if (meta.getContentCount() == 0) {
      return java.util.Optional.empty(); // the state travels in numbered chunks
    }
    if (meta.getContentCount() > maxChunks) {
      return java.util.Optional.of(
          "header lists " + meta.getContentCount() + " content chunks; at most " + maxChunks);
    }
    long bytes = 0;
    int crc = 0;
    for (int i = 0; i < meta.getContentCount(); i++) {
      io.cutpoint.api.v1.ContentChunk c = meta.getContent(i);
      if (c.getSha256().size() != ContentChunks.HASH_BYTES) {
        return java.util.Optional.of(
            "content chunk " + i + ": a SHA-256 has 32 bytes, got " + c.getSha256().size());
      }
      if (c.getLength() < 1 || c.getLength() > maxChunkBytes) {
        return java.util.Optional.of(
            "content chunk "
                + i
                + " has "
                + Integer.toUnsignedString(c.getLength())
                + " bytes; 1 to "
                + maxChunkBytes
                + " are allowed");
      }
      bytes += c.getLength();
      crc = Crc32cCombine.combine(crc, c.getCrc32C(), c.getLength());
    }
    if (bytes != meta.getStateBytes() || crc != meta.getStateCrc32C()) {
      return java.util.Optional.of(
          String.format(
              "the content chunks add up to %d bytes with CRC32C %08x, the header declares %d"
                  + " bytes with %08x",
              bytes, crc, meta.getStateBytes(), meta.getStateCrc32C()));
    }
    return java.util.Optional.empty();
  }

  /** The frame of section 3 of storage.md: format byte, CRC32C of key ++ payload, payload. */
  public static byte[] frame(byte[] key, byte[] payload) {
    return ValueFrames.wrap(key, payload);
  }

  /**
   * Checks a framed value and returns its payload.
   *
   * @throws CorruptionException naming {@code piece} if the value is truncated or fails its CRC
   */
  public static byte[] unframe(byte[] key, byte[] value, Supplier<String> piece) {
    return ValueFrames.unwrap(key, value, piece);
  }

  /**
   * One stored batch of a channel's recording: the messages in sequence order, from {@code
   * channel}'s sender.
   *
   * @throws IllegalArgumentException if the messages are not in increasing sequence order
   */
  public static ChannelRecording recordingBatch(
      long snapshotId, ChannelId channel, List<InTransitMessage> messages) {
    ChannelRecording.Builder batch = ChannelRecording.newBuilder().setFrom(channel.from());
    long previous = 0;
    for (InTransitMessage m : messages) {
      if (m.seq() <= previous) {
        throw new IllegalArgumentException(
            "snapshot "
                + snapshotId
                + ", channel "
                + channel
                + ": message #"
                + m.seq()
                + " after #"
                + previous
                + " (recordings are in sequence order)");
      }
      previous = m.seq();
      batch.addMessages(
          RecordedMessage.newBuilder()
              .setSeq(m.seq())
              .setPayload(ByteString.copyFrom(m.payload())));
    }
    return batch.build();
  }

  /**
   * Refuses to delete {@code m} while it is PENDING or the target of the rollback in progress.
   *
   * @throws NotPendingException for a PENDING snapshot
   * @throws StoreException for the rollback's target
   */
  public static void refuseDeletion(
      SnapshotManifest m, Optional<SnapshotStore.RollbackIntent> rollback) {
    long id = m.getSnapshotId();
    if (m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
      throw new NotPendingException(id, m.getStatus(), "delete (finish it first)");
    }
    if (m.getPinned()) {
      throw new DeletionRefusedException("snapshot " + id + " is pinned; unpin it first");
    }
    rollback
        .filter(r -> r.snapshotId() == id)
        .ifPresent(
            r -> {
              throw new DeletionRefusedException(
                  "snapshot "
                      + id
                      + " is the target of the rollback to epoch "
                      + r.epoch()
                      + " in progress");
            });
  }

  /** What retention needs to know about one manifest. */
  public record RetentionEntry(long id, SnapshotStatus status, boolean pinned) {}

  /** The ids retention deletes, newest first, from every manifest listed newest first. */
  public static List<Long> toDelete(
      List<RetentionEntry> newestFirst, int keep, Set<Long> protectedIds) {
    List<RetentionPlan.Entry> entries = new ArrayList<>();
    for (RetentionEntry e : newestFirst) {
      entries.add(new RetentionPlan.Entry(e.id(), e.status(), e.pinned()));
    }
    return RetentionPlan.toDelete(entries, keep, protectedIds);
  }

  /**
   * What arrived for one PENDING snapshot, and the checks {@link SnapshotStore#commit} makes.
   * Pieces take the read lock; commit, finish and discard take the write lock.
   */
  public static final class Pending {
    private final PieceLedger p;

    public Pending(long id) {
      this.p = new PieceLedger(id);
    }

    public ReadWriteLock lock() {
      return p.lock;
    }

    /** Must hold the write lock. */
    public void close() {
      p.close();
    }

    /** Must hold a lock. */
    public boolean isClosed() {
      return p.isClosed();
    }

    public void chunk(String workerId, int index, byte[] data) {
      p.chunk(workerId, index, data.length, io.cutpoint.api.Crc32c.of(data));
    }

    /** A chunk of {@code length} bytes whose CRC32C, already checked, is {@code crc}. */
    public void chunk(String workerId, int index, int length, int crc) {
      p.chunk(workerId, index, length, crc);
    }

    public void recording(ChannelId channel, List<InTransitMessage> messages) {
      p.recording(channel, messages);
    }

    /** A content chunk of {@code length} bytes with CRC32C {@code crc} was stored for it. */
    public void contentChunk(ByteString hash, int length, int crc) {
      p.contentChunk(hash, new ContentChunks.Stored(length, crc));
    }

    /** A committed snapshot's content chunk is kept for this one until it ends. */
    public void hold(ByteString hash, int length, int crc) {
      p.hold(hash, new ContentChunks.Stored(length, crc));
    }

    /** Whether it uploaded or holds the content chunk: it must not be deleted meanwhile. */
    public boolean usesContent(ByteString hash) {
      return p.usesContent(hash);
    }

    /** Every content chunk it uploaded or holds. */
    public Set<ByteString> contentInUse() {
      return p.contentInUse();
    }

    /** The content chunks its stored pieces use: what a commit makes it reference. */
    public Set<ByteString> referenced() {
      return Set.copyOf(p.referenced().keySet());
    }

    public void meta(LocalSnapshotMeta meta) {
      p.meta(meta);
    }

    public void forget(String workerId) {
      p.forget(workerId);
    }

    /**
     * The manifest with its pieces and totals filled in from what arrived.
     *
     * @throws StoreException naming what is missing or does not match
     */
    public SnapshotManifest completed(SnapshotManifest complete) {
      return p.completed(complete);
    }
  }
}
