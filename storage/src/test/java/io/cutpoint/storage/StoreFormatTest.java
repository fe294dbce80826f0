package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The store's format 2: content chunk references count runs of consecutive COMPLETE snapshots; a
 * store of format 1 (a count of snapshots, no version) is counted again on open; builds before
 * format 2 cannot open it, and a format newer than this build is refused.
 */
class StoreFormatTest {
  private static final byte[] VERSION = "version".getBytes(StandardCharsets.UTF_8);

  @TempDir Path tmp;

  /** 1 and 3 share the chunk at position 5, which 2 replaces: two runs of it, one of the rest. */
  private final SnapshotFixture one = SnapshotFixture.shared(1, 0, 256);

  private final SnapshotFixture two = SnapshotFixture.shared(2, 5, 256);
  private final SnapshotFixture three = SnapshotFixture.shared(3, 0, 256);

  @Test
  void aChunkCountsItsRunsOfSnapshotsAndTwoRunsJoinWhenTheSnapshotBetweenThemGoes()
      throws Exception {
    ByteString five = commonChunk(5);
    ByteString six = commonChunk(6);
    try (RocksSnapshotStore store = open()) {
      one.storeContent(store);
      two.storeContent(store);
      three.storeContent(store);
    }
    assertThat(count(five)).isEqualTo(2);
    assertThat(count(six)).isEqualTo(1);
    try (RocksSnapshotStore store = open()) {
      assertThat(store.delete(2)).isTrue();
      ContentChunksContract.assertReadsBack(store, one, three);
    }
    assertThat(count(five)).isEqualTo(1);
    try (RocksSnapshotStore store = open()) {
      assertThat(store.delete(1)).isTrue();
      assertThat(store.delete(3)).isTrue();
    }
    assertThat(contentKeys(RocksHandles.CONTENT_CHUNKS)).isEmpty();
    assertThat(contentKeys(RocksHandles.CONTENT_REFS)).isEmpty();
  }

  @Test
  void theChunksOfASnapshotWhoseMetadataCannotBeReadStayWhenItsNeighboursGo() throws Exception {
    try (RocksSnapshotStore store = open()) {
      one.storeContent(store);
      two.storeContent(store);
      three.storeContent(store);
    }
    try (RawDb raw = new RawDb(tmp)) {
      for (String w : SnapshotFixture.WORKERS) {
        raw.flipByte(RocksHandles.WORKER_META, Keys.worker(2, w), 100);
      }
    }
    try (RocksSnapshotStore store = open()) {
      // the chunks snapshot 2 shares with 1 and 3 are one run of three: had the unreadable
      // metadata been taken for no chunks, each deletion would have ended a run of them
      assertThat(store.delete(1)).isTrue();
      assertThat(store.delete(3)).isTrue();
    }
    assertThat(contentKeys(RocksHandles.CONTENT_CHUNKS))
        .containsAll(ContentChunksContract.hashesOf(two));
  }

  @Test
  void aStoreThatCountedSnapshotsIsCountedAgainOnOpenAndLeaksNothing() throws Exception {
    writeFormatOne();
    try (RocksSnapshotStore store = open()) {
      ContentChunksContract.assertReadsBack(store, one, two, three);
    }
    assertThat(count(commonChunk(5))).isEqualTo(2);
    assertThat(count(commonChunk(6))).isEqualTo(1);
    assertThat(version()).isEqualTo(StoreFormat.CURRENT);
    deleteAll();
    assertThat(contentKeys(RocksHandles.CONTENT_CHUNKS)).isEmpty();
  }

  @Test
  void theCheckThatNothingLeaksFindsAStoreMarkedNewWhoseCountsWereNotRedone() throws Exception {
    writeFormatOne();
    try (RawDb raw = new RawDb(tmp)) {
      raw.put(RocksHandles.FORMAT, VERSION, versionValue(StoreFormat.CURRENT));
    }
    deleteAll();
    assertThat(contentKeys(RocksHandles.CONTENT_CHUNKS)).isNotEmpty();
  }

  @Test
  void aBuildThatOpensEveryFamilyWithTheDefaultComparatorCannotOpenTheStore() throws Exception {
    try (RocksSnapshotStore store = open()) {
      one.storeContent(store);
    }
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    try (Options list = new Options()) {
      for (byte[] name : RocksDB.listColumnFamilies(list, tmp.toString())) {
        descriptors.add(new ColumnFamilyDescriptor(name));
      }
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions()) {
      assertThatThrownBy(() -> RocksDB.open(options, tmp.toString(), descriptors, handles).close())
          .isInstanceOf(RocksDBException.class)
          .hasMessageContaining("comparator");
    }
    assertThat(handles).isEmpty();
    try (RocksSnapshotStore store = open()) {
      ContentChunksContract.assertReadsBack(store, one);
    }
  }

  @Test
  void aNewerFormatIsRefusedBeforeAnythingIsWritten() throws Exception {
    try (RocksSnapshotStore store = open()) {
      one.storeContent(store);
    }
    try (RawDb raw = new RawDb(tmp)) {
      raw.put(RocksHandles.FORMAT, VERSION, versionValue(StoreFormat.CURRENT + 1));
    }
    Map<ByteString, Long> before = counts();
    assertThatThrownBy(this::open)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("has format " + (StoreFormat.CURRENT + 1))
        .hasMessageContaining("written by a newer Cutpoint");
    assertThat(version()).isEqualTo(StoreFormat.CURRENT + 1);
    assertThat(counts()).isEqualTo(before);
  }

  /** Three committed snapshots, then the counts and the version rewritten as format 1 had them. */
  private void writeFormatOne() throws Exception {
    try (RocksSnapshotStore store = open()) {
      one.storeContent(store);
      two.storeContent(store);
      three.storeContent(store);
    }
    Map<ByteString, Integer> snapshots = new HashMap<>();
    for (SnapshotFixture f : List.of(one, two, three)) {
      for (ByteString c : ContentChunksContract.hashesOf(f)) {
        snapshots.merge(c, 1, Integer::sum);
      }
    }
    try (RawDb raw = new RawDb(tmp)) {
      for (Map.Entry<ByteString, Integer> e : snapshots.entrySet()) {
        byte[] key = e.getKey().toByteArray();
        ByteBuffer old =
            ByteBuffer.wrap(
                ValueFrames.unwrap(key, raw.get(RocksHandles.CONTENT_REFS, key), () -> "refs"));
        old.getLong();
        byte[] payload =
            ByteBuffer.allocate(16)
                .putLong(e.getValue())
                .putInt(old.getInt())
                .putInt(old.getInt())
                .array();
        raw.put(RocksHandles.CONTENT_REFS, key, ValueFrames.wrap(key, payload));
      }
      raw.delete(RocksHandles.FORMAT, VERSION);
    }
    assertThat(count(commonChunk(6))).isEqualTo(3);
  }

  private void deleteAll() {
    try (RocksSnapshotStore store = open()) {
      for (long id = 1; id <= 3; id++) {
        assertThat(store.delete(id)).isTrue();
      }
    }
  }

  private RocksSnapshotStore open() {
    return RocksSnapshotStore.open(tmp, RocksSnapshotStore.Options.DEFAULT);
  }

  /**
   * The chunk at {@code position} of every worker's state, in a snapshot that did not change it.
   */
  private ByteString commonChunk(int position) {
    SnapshotFixture unchanged = position == 0 ? two : one;
    return unchanged.contentMeta("a").getContent(position).getSha256();
  }

  private long count(ByteString hash) throws Exception {
    return counts().get(hash);
  }

  private Map<ByteString, Long> counts() throws Exception {
    Map<ByteString, Long> out = new HashMap<>();
    try (RawDb raw = new RawDb(tmp)) {
      for (byte[] key : raw.allKeys(RocksHandles.CONTENT_REFS)) {
        byte[] payload = ValueFrames.unwrap(key, raw.get(RocksHandles.CONTENT_REFS, key), () -> "");
        out.put(ByteString.copyFrom(key), ByteBuffer.wrap(payload).getLong());
      }
    }
    return out;
  }

  private Set<ByteString> contentKeys(String family) throws Exception {
    Set<ByteString> out = new HashSet<>();
    try (RawDb raw = new RawDb(tmp)) {
      raw.allKeys(family).forEach(k -> out.add(ByteString.copyFrom(k)));
    }
    return out;
  }

  private int version() throws Exception {
    try (RawDb raw = new RawDb(tmp)) {
      byte[] value = raw.get(RocksHandles.FORMAT, VERSION);
      return ByteBuffer.wrap(ValueFrames.unwrap(VERSION, value, () -> "format")).getInt();
    }
  }

  private static byte[] versionValue(int version) {
    return ValueFrames.wrap(VERSION, ByteBuffer.allocate(4).putInt(version).array());
  }
}
