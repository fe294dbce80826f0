package io.cutpoint.storage;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.cutpoint.api.Crc32cCombine;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * Every read path of the store. Each value is checked against its CRC32C before anything is done
 * with it; on a mismatch a {@link CorruptionException} names the snapshot, the worker or channel
 * and the piece. The caller holds the store's read lock.
 */
final class StoreReader {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StoreReader.class);
  private final RocksHandles rocks;

  StoreReader(RocksHandles rocks) {
    this.rocks = rocks;
  }

  Optional<SnapshotManifest> manifest(long id) {
    return manifest(id, StoreReader::parseManifest);
  }

  private Optional<SnapshotManifest> manifest(long id, ManifestParser parser) {
    byte[] key = Keys.snapshot(id);
    byte[] value = get(rocks.manifests, key, "read manifest of snapshot " + id);
    if (value == null) {
      return Optional.empty();
    }
    return Optional.of(parser.parse(key, value));
  }

  /** Reads a manifest's stored value (checksum included) under its key. */
  @FunctionalInterface
  interface ManifestParser {
    SnapshotManifest parse(byte[] key, byte[] value);
  }

  /**
   * Only the head of a stored manifest: its id, status, pin and byte totals, which is what
   * retention decides by. Its checksum is checked like a whole manifest's; the pieces, topology,
   * violations and timings are stepped over without being built, so retention after every commit
   * does not parse every piece of every kept snapshot.
   */
  static SnapshotManifest parseManifestHead(byte[] key, byte[] value) {
    long id = Keys.snapshotIdOf(key);
    byte[] payload = ValueFrames.unwrap(key, value, () -> "snapshot " + id + ", manifest");
    SnapshotManifest.Builder head = SnapshotManifest.newBuilder();
    CodedInputStream in = CodedInputStream.newInstance(payload);
    try {
      for (int tag; (tag = in.readTag()) != 0; ) {
        switch (WireFormat.getTagFieldNumber(tag)) {
          case SnapshotManifest.SNAPSHOT_ID_FIELD_NUMBER -> head.setSnapshotId(in.readUInt64());
          case SnapshotManifest.STATUS_FIELD_NUMBER -> head.setStatusValue(in.readEnum());
          case SnapshotManifest.PINNED_FIELD_NUMBER -> head.setPinned(in.readBool());
          case SnapshotManifest.TOTAL_STATE_BYTES_FIELD_NUMBER ->
              head.setTotalStateBytes(in.readUInt64());
          case SnapshotManifest.TOTAL_CHANNEL_BYTES_FIELD_NUMBER ->
              head.setTotalChannelBytes(in.readUInt64());
          default -> in.skipField(tag);
        }
      }
    } catch (IOException e) {
      throw new CorruptionException("snapshot " + id + ", manifest: unreadable: " + e.getMessage());
    }
    return head.build();
  }

  static SnapshotManifest parseManifest(byte[] key, byte[] value) {
    long id = Keys.snapshotIdOf(key);
    byte[] payload = ValueFrames.unwrap(key, value, () -> "snapshot " + id + ", manifest");
    try {
      return SnapshotManifest.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptionException("snapshot " + id + ", manifest: unreadable: " + e.getMessage());
    }
  }

  Optional<LocalSnapshotMeta> workerMeta(long id, String workerId) {
    byte[] key = Keys.worker(id, workerId);
    byte[] value = get(rocks.workerMeta, key, "read metadata of snapshot " + id);
    if (value == null) {
      return Optional.empty();
    }
    String piece = "snapshot " + id + ", worker " + workerId + ", metadata";
    byte[] payload = ValueFrames.unwrap(key, value, () -> piece);
    try {
      return Optional.of(LocalSnapshotMeta.parseFrom(payload));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptionException(piece + ": unreadable: " + e.getMessage());
    }
  }

  /**
   * Streams the chunks in index order. Each chunk is checked before it is passed on; a gap in the
   * indices fails before the chunk after it. For a COMPLETE snapshot the chunk count, the total
   * size and the whole-state CRC32C are checked against the manifest and the worker's metadata
   * after the last chunk.
   */
  int readState(long id, String workerId, Consumer<byte[]> sink) {
    java.util.Objects.requireNonNull(sink);
    // an array of exactly the chunk's length: the consumer takes the whole array as the chunk
    return scanState(id, workerId, byte[]::new, (data, length, crc) -> sink.accept(data));
  }

  /**
   * As {@link #readState(long, String, Consumer)}, each chunk's bytes put into an array from {@code
   * arrays}, with the CRC32C they were checked against ({@link SnapshotStore#readState(long,
   * String, java.util.function.IntFunction, SnapshotStore.StateChunks)}).
   */
  int readState(
      long id,
      String workerId,
      java.util.function.IntFunction<byte[]> arrays,
      SnapshotStore.StateChunks sink) {
    return scanState(id, workerId, arrays, java.util.Objects.requireNonNull(sink));
  }

  /**
   * As {@link #readState}, checking every chunk without passing it on: a content chunk is checked
   * where RocksDB puts it, and no array is allocated for it.
   */
  int checkState(long id, String workerId) {
    return scanState(id, workerId, null, null);
  }

  /** {@link #readState}; with a null {@code sink}, {@link #checkState}. */
  private int scanState(
      long id,
      String workerId,
      java.util.function.IntFunction<byte[]> arrays,
      SnapshotStore.StateChunks sink) {
    Optional<SnapshotManifest> manifest = manifest(id);
    boolean complete =
        manifest.map(m -> m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).orElse(false);
    Optional<LocalSnapshotMeta> meta = workerMeta(id, workerId);
    String who = "snapshot " + id + ", worker " + workerId;
    if (meta.isPresent() && isContentAddressed(id, meta.get())) {
      return readContent(who, meta.get(), arrays, sink);
    }
    if (!complete) {
      meta = Optional.empty();
    }
    long[] bytes = {0};
    int[] whole = {0};
    int count =
        scan(
            rocks.stateChunks,
            Keys.worker(id, workerId),
            "read state of " + who,
            (key, value, n) -> {
              int index = Keys.chunkIndexOf(key);
              if (index != n) {
                throw new CorruptionException(who + ", state chunk " + n + ": missing");
              }
              // the frame's check and the chunk's own CRC32C in one pass over the bytes
              int crc = ValueFrames.payloadCrc(key, value, () -> who + ", state chunk " + index);
              int length = value.length - ValueFrames.HEADER;
              whole[0] = Crc32cCombine.combine(whole[0], crc, length);
              bytes[0] += length;
              if (sink != null) {
                byte[] data = arrays.apply(length);
                System.arraycopy(value, ValueFrames.HEADER, data, 0, length);
                sink.accept(data, length, crc);
              }
            });
    if (complete) {
      int expected =
          manifest.get().getPiecesList().stream()
              .filter(p -> p.getWorkerId().equals(workerId))
              .mapToInt(WorkerPiece::getStateChunks)
              .findFirst()
              .orElse(count);
      if (count < expected) {
        throw new CorruptionException(
            who + ", state chunk " + count + ": missing (" + expected + " chunks committed)");
      }
      if (meta.isEmpty()) {
        throw new CorruptionException(who + ", metadata: missing");
      }
      if (bytes[0] != meta.get().getStateBytes() || whole[0] != meta.get().getStateCrc32C()) {
        throw new CorruptionException(
            String.format(
                "%s, state: %d bytes with CRC32C %08x read, %d bytes with %08x committed",
                who, bytes[0], whole[0], meta.get().getStateBytes(), meta.get().getStateCrc32C()));
      }
    }
    return count;
  }

  /**
   * Streams a content-addressed state: each chunk the meta lists, checked against its frame, its
   * length and its CRC32C before it is passed on; then the whole state's size and CRC32C. A chunk
   * that is missing or fails a check fails the read (and every other snapshot that uses it).
   */
  private int readContent(
      String who,
      LocalSnapshotMeta meta,
      java.util.function.IntFunction<byte[]> arrays,
      SnapshotStore.StateChunks sink) {
    ContentChunks chunks = new ContentChunks(rocks);
    // one array for every chunk's stored value, read and checked in place
    int largest = meta.getContentList().stream().mapToInt(ContentChunk::getLength).max().orElse(0);
    byte[] value = new byte[ValueFrames.HEADER + largest];
    long bytes = 0;
    int whole = 0;
    for (int i = 0; i < meta.getContentCount(); i++) {
      ContentChunk c = meta.getContent(i);
      String piece = who + ", " + ContentChunks.describe(i, c.getSha256());
      // the frame's check and the listed CRC32C's in one pass over the bytes
      int length = chunks.read(c.getSha256(), c.getCrc32C(), value, () -> piece);
      if (length < 0) {
        throw new ChunkDamageException(piece + ": missing", c.getSha256());
      }
      if (length != c.getLength()) {
        throw new ChunkDamageException(
            String.format("%s: %d bytes stored, %d listed", piece, length, c.getLength()),
            c.getSha256());
      }
      whole = Crc32cCombine.combine(whole, c.getCrc32C(), length);
      bytes += length;
      if (sink != null) {
        byte[] data = arrays.apply(length);
        System.arraycopy(value, ValueFrames.HEADER, data, 0, length);
        sink.accept(data, length, c.getCrc32C());
      }
    }
    if (bytes != meta.getStateBytes() || whole != meta.getStateCrc32C()) {
      throw new CorruptionException(
          String.format(
              "%s, state: %d bytes with CRC32C %08x read, %d bytes with %08x committed",
              who, bytes, whole, meta.getStateBytes(), meta.getStateCrc32C()));
    }
    return meta.getContentCount();
  }

  /**
   * Whether a worker's piece keeps its state as content chunks: its meta lists them and no numbered
   * chunk was stored for it (a piece copied from a store that keeps numbered chunks keeps the list
   * its worker sent, but not as content chunks).
   */
  boolean isContentAddressed(long id, LocalSnapshotMeta meta) {
    if (meta.getContentCount() == 0) {
      return false;
    }
    return !any(rocks.stateChunks, Keys.worker(id, meta.getWorkerId()), id);
  }

  /**
   * Whether snapshot {@code id} keeps any state in numbered chunks, in its own key range (a
   * content-addressed state is kept by hash, outside it).
   */
  boolean hasNumberedChunks(long id) {
    return any(rocks.stateChunks, Keys.snapshot(id), id);
  }

  private boolean any(ColumnFamilyHandle family, byte[] prefix, long id) {
    try (Slice upper = new Slice(Keys.prefixEnd(prefix));
        ReadOptions options = new ReadOptions().setIterateUpperBound(upper).setFillCache(false);
        RocksIterator it = rocks.db.newIterator(family, options)) {
      it.seek(prefix);
      boolean found = it.isValid();
      it.status();
      return found;
    } catch (RocksDBException e) {
      throw rocks.fail("read state chunks of snapshot " + id, e);
    }
  }

  /**
   * Adds to {@code into} the chunks that snapshot {@code id}'s readable metadata lists, with their
   * lengths and CRC32Cs; unreadable metadata adds nothing.
   */
  void contentListed(
      long id, java.util.Map<com.google.protobuf.ByteString, ContentChunks.Stored> into) {
    try {
      contentMetas(
          id,
          "list the content chunks of snapshot " + id,
          "its chunks are not listed",
          meta -> ContentChunks.of(meta).forEach(into::putIfAbsent));
    } catch (CorruptionException e) {
      log.warn(
          "snapshot {}: its metadata cannot be read, its chunks are not listed: {}",
          id,
          e.getMessage());
    }
  }

  /**
   * The content chunks the pieces of committed snapshot {@code id} use, each once; null when that
   * is not known for certain: a meta cannot be read, or fewer are stored than the {@code metas} its
   * manifest lists (in a table file set aside). {@link ChunkRuns} counts an unknown set on the safe
   * side.
   */
  java.util.Set<com.google.protobuf.ByteString> contentIfKnown(long id, int metas) {
    java.util.Set<com.google.protobuf.ByteString> out = new java.util.HashSet<>();
    MetaScan scanned;
    try {
      scanned =
          contentMetas(
              id,
              "read the content chunks of snapshot " + id,
              "the chunks next to it keep their references",
              meta -> out.addAll(ContentChunks.of(meta).keySet()));
    } catch (CorruptionException e) {
      return null;
    }
    return scanned.unreadable() > 0 || scanned.found() < metas ? null : out;
  }

  /**
   * Hands each content-addressed meta of snapshot {@code id} to {@code each}, and logs one that
   * cannot be read, with {@code consequence}.
   *
   * @return the metas found and, of them, those that could not be read
   */
  private MetaScan contentMetas(
      long id,
      String operation,
      String consequence,
      java.util.function.Consumer<LocalSnapshotMeta> each) {
    int[] unreadable = {0};
    int found =
        scan(
            rocks.workerMeta,
            Keys.snapshot(id),
            operation,
            (key, value, n) -> {
              try {
                byte[] payload = ValueFrames.unwrap(key, value, () -> describe(id, "meta", key));
                LocalSnapshotMeta meta = LocalSnapshotMeta.parseFrom(payload);
                if (isContentAddressed(id, meta)) {
                  each.accept(meta);
                }
              } catch (CorruptionException | InvalidProtocolBufferException e) {
                log.warn(
                    "{}: unreadable, {}: {}",
                    describe(id, "meta", key),
                    consequence,
                    e.getMessage());
                unreadable[0]++;
              }
            });
    return new MetaScan(found, unreadable[0]);
  }

  /** What {@link #contentMetas} found: metas, and of them those that could not be read. */
  private record MetaScan(int found, int unreadable) {}

  /** The messages of one channel; for a COMPLETE snapshot a gap between batches is corruption. */
  List<InTransitMessage> readChannel(long id, ChannelId channel, boolean complete) {
    List<InTransitMessage> messages = new ArrayList<>();
    String what = "snapshot " + id + ", channel " + channel;
    scan(
        rocks.channelStates,
        Keys.channel(id, channel),
        "read " + what,
        (key, value, n) -> appendBatch(what, key, value, complete, messages));
    return messages;
  }

  /** Every recorded message on the channels into {@code receiver}; returns their count. */
  long countIncoming(long id, String receiver) {
    long[] total = {0};
    scan(
        rocks.channelStates,
        Keys.receiver(id, receiver),
        "read channels of snapshot " + id,
        (key, value, n) -> {
          String what = "snapshot " + id + ", channel " + describeChannel(key);
          total[0] += appendBatch(what, key, value, false, new ArrayList<>());
        });
    return total[0];
  }

  /** Checks the CRC of every value stored under {@code id} in {@code family}. */
  void checkAll(ColumnFamilyHandle family, long id, String kind) {
    scan(
        family,
        Keys.snapshot(id),
        "verify snapshot " + id,
        (key, value, n) -> ValueFrames.unwrap(key, value, () -> describe(id, kind, key)));
  }

  private int appendBatch(
      String what, byte[] key, byte[] value, boolean contiguous, List<InTransitMessage> out) {
    long first = Keys.batchSeqOf(key);
    String piece = what + ", batch from #" + first;
    byte[] payload = ValueFrames.unwrap(key, value, () -> piece);
    ChannelRecording batch;
    try {
      batch = ChannelRecording.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptionException(piece + ": unreadable: " + e.getMessage());
    }
    if (contiguous && !out.isEmpty() && out.get(out.size() - 1).seq() + 1 != first) {
      throw new CorruptionException(
          what
              + ": messages #"
              + (out.get(out.size() - 1).seq() + 1)
              + " to #"
              + (first - 1)
              + " missing");
    }
    for (RecordedMessage m : batch.getMessagesList()) {
      out.add(new InTransitMessage(m.getSeq(), m.getPayload().toByteArray()));
    }
    return batch.getMessagesCount();
  }

  /** Names the piece under {@code key}; a damaged key is named by its bytes. */
  static String describeKey(long id, String kind, byte[] key) {
    return describe(id, kind, key);
  }

  private static String describe(long id, String kind, byte[] key) {
    try {
      return switch (kind) {
        case "state" ->
            "snapshot "
                + id
                + ", worker "
                + Keys.workerOf(key)
                + ", state chunk "
                + Keys.chunkIndexOf(key);
        case "channel" ->
            "snapshot "
                + id
                + ", channel "
                + describeChannel(key)
                + ", batch from #"
                + Keys.batchSeqOf(key);
        default -> "snapshot " + id + ", worker " + Keys.workerOf(key) + ", metadata";
      };
    } catch (RuntimeException badKey) {
      return "snapshot " + id + ", " + kind + " key " + HexFormat.of().formatHex(key);
    }
  }

  private static String describeChannel(byte[] key) {
    try {
      return Keys.channelOf(key).toString();
    } catch (RuntimeException badKey) {
      return HexFormat.of().formatHex(key);
    }
  }

  private byte[] get(ColumnFamilyHandle family, byte[] key, String operation) {
    try {
      return rocks.db.get(family, key);
    } catch (org.rocksdb.RocksDBException e) {
      throw rocks.fail(operation, e);
    }
  }

  /** Visits, in key order, every entry whose key starts with {@code prefix}. */
  interface Visitor {
    void visit(byte[] key, byte[] value, int ordinal);
  }

  int scan(ColumnFamilyHandle family, byte[] prefix, String operation, Visitor visitor) {
    int n = 0;
    try (Slice upper = new Slice(Keys.prefixEnd(prefix));
        ReadOptions options = new ReadOptions().setIterateUpperBound(upper).setFillCache(false);
        RocksIterator it = rocks.db.newIterator(family, options)) {
      for (it.seek(prefix); it.isValid(); it.next()) {
        visitor.visit(it.key(), it.value(), n++);
      }
      it.status();
    } catch (RocksDBException e) {
      throw rocks.fail(operation, e);
    }
    return n;
  }

  /** What {@link #checkAll} calls the pieces of {@code family}. */
  String kindOf(ColumnFamilyHandle family) {
    return family == rocks.stateChunks
        ? "state"
        : family == rocks.channelStates ? "channel" : "metadata";
  }

  /**
   * Manifests, newest first, of the given statuses (all if empty), at most {@code limit}. A
   * manifest that cannot be read is recorded in {@code damage}; with {@code withDamaged} (and no
   * status filter) it is listed as a manifest with only its id and {@code damage} set, otherwise it
   * is skipped. A damaged block in the column family is stepped over ({@link IdWalk}).
   */
  List<SnapshotManifest> newestFirst(
      Set<SnapshotStatus> statuses, int limit, boolean withDamaged, Damage damage) {
    return newestFirst(statuses, limit, withDamaged, damage, StoreReader::parseManifest);
  }

  /**
   * As {@link #newestFirst(Set, int, boolean, Damage)}, each manifest read by {@code parser} (say,
   * {@link #parseManifestHead}).
   */
  List<SnapshotManifest> newestFirst(
      Set<SnapshotStatus> statuses,
      int limit,
      boolean withDamaged,
      Damage damage,
      ManifestParser parser) {
    List<SnapshotManifest> out = new ArrayList<>();
    // Manifests known lost (in a damaged block, or in a table file set aside) are listed in
    // their place by the walk below.
    if (damage.lostManifests().isEmpty()) {
      try (RocksIterator it = rocks.db.newIterator(rocks.manifests)) {
        for (it.seekToLast(); it.isValid() && out.size() < limit; it.prev()) {
          add(
              Keys.snapshotIdOf(it.key()),
              () -> parser.parse(it.key(), it.value()),
              statuses,
              withDamaged,
              damage,
              out);
        }
        it.status();
        return out;
      } catch (RocksDBException e) {
        if (!RocksHandles.isCorruption(e)) {
          throw rocks.fail("list manifests", e);
        }
        log.error("Listing around a damaged block of the manifests: {}", e.getMessage());
      }
    }
    java.util.TreeSet<Long> ids = new java.util.TreeSet<>();
    new IdWalk(rocks, rocks.manifests).walk(ids::add);
    ids.addAll(damage.lostManifests().keySet());
    out.clear();
    for (long id : ids.descendingSet()) {
      if (out.size() >= limit) {
        break;
      }
      String lost = damage.lostManifests().get(id);
      add(
          id,
          () -> {
            Optional<SnapshotManifest> m = manifest(id, parser);
            if (m.isEmpty() && lost != null) {
              throw new CorruptionException("snapshot " + id + ", manifest: " + lost);
            }
            return m.orElse(null); // walked, then deleted before its read: not listed
          },
          statuses,
          withDamaged,
          damage,
          out);
    }
    return out;
  }

  /** Adds the manifest {@code read} gives (null: deleted since its id was found) if it matches. */
  private static void add(
      long id,
      java.util.function.Supplier<SnapshotManifest> read,
      Set<SnapshotStatus> statuses,
      boolean withDamaged,
      Damage damage,
      List<SnapshotManifest> out) {
    SnapshotManifest m;
    try {
      m = read.get();
    } catch (CorruptionException e) {
      damage.lostManifest(id, e.getMessage());
      if (withDamaged && statuses.isEmpty()) {
        out.add(damage.mark(SnapshotManifest.newBuilder().setSnapshotId(id).build()));
      } else {
        log.error("Skipping a damaged manifest: {}", e.getMessage());
      }
      return;
    }
    if (m != null && (statuses.isEmpty() || statuses.contains(m.getStatus()))) {
      out.add(damage.mark(m));
    }
  }
}
