package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ContentChunksContract} on the RocksDB store: its chunks are the keys of {@code
 * content_chunks}, damaged and removed with the store closed. Also the store's own race: a query's
 * lookup and an upload's write happen outside the chunks' lock, and a deletion decided in between
 * must not leave a snapshot counting on a chunk it removed.
 */
class ContentChunksTest extends ContentChunksContract {
  @TempDir Path tmp;

  @Override
  SnapshotStore open() {
    return RocksSnapshotStore.open(tmp.resolve("db"), RocksSnapshotStore.Options.DEFAULT);
  }

  @Override
  Set<ByteString> stored() throws Exception {
    Set<ByteString> out = new HashSet<>();
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.allKeys(RocksHandles.CONTENT_CHUNKS).forEach(k -> out.add(ByteString.copyFrom(k)));
    }
    return out;
  }

  @Override
  void damage(ByteString hash) throws Exception {
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.flipByte(RocksHandles.CONTENT_CHUNKS, hash.toByteArray(), 100);
    }
  }

  @Override
  void remove(ByteString hash) throws Exception {
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.delete(RocksHandles.CONTENT_CHUNKS, hash.toByteArray());
    }
  }

  @Override
  int collectedOnOpen(SnapshotStore store) {
    return ((RocksSnapshotStore) store).contentChunksCollectedOnOpen();
  }

  @Test
  void aQueryAnsweredWhileTheOnlySnapshotUsingItsChunksIsDeletedReportsThemMissing()
      throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 0); // the same chunks as the first but for chunk 0
    try (RocksSnapshotStore store = (RocksSnapshotStore) open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      deleteOnce(store, 1); // after the lookup read the first's references, before the answer
      int sent = second.writeWorkerContent(store, "a");
      assertThat(sent)
          .as("the lookup saw chunks the deletion then removed: all of them go up again")
          .isEqualTo(16);
      assertThat(store.manifest(1)).isEmpty();
      commitTheRest(store, second);
      assertReadsBack(store, second);
    }
    assertThat(stored()).isEqualTo(hashesOf(second));
  }

  @Test
  void anUploadWhoseChunkTheOnlySnapshotUsingItDeletesMeanwhileIsStoredAnyway() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 0);
    try (RocksSnapshotStore store = (RocksSnapshotStore) open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      // Worker a sends every chunk without asking first; chunk 1 is the first's, so its body is
      // not written again, and the deletion that follows removes it before the upload is recorded.
      List<byte[]> chunks = second.chunks("a");
      List<ByteString> hashes = new java.util.ArrayList<>();
      second.contentMeta("a").getContentList().forEach(c -> hashes.add(c.getSha256()));
      store.putContentChunk(2, "a", 0, hashes.get(0), chunks.get(0), crc(chunks.get(0)));
      deleteOnce(store, 1);
      for (int i = 1; i < chunks.size(); i++) {
        store.putContentChunk(2, "a", i, hashes.get(i), chunks.get(i), crc(chunks.get(i)));
      }
      assertThat(store.manifest(1)).isEmpty();
      store.putWorkerMeta(2, second.contentMeta("a"));
      commitTheRest(store, second);
      assertReadsBack(store, second);
    }
    assertThat(stored()).isEqualTo(hashesOf(second));
  }

  /**
   * A chunk is read into one array and checked there; a stored value that is well framed but is not
   * the listed chunk (longer than that array, shorter, or another chunk's bytes) still fails the
   * download and the check before a rollback, and the original value passes both again.
   */
  @Test
  void aChunkStoredWithOtherBytesThanListedFailsTheReadAndTheCheck() throws Exception {
    SnapshotFixture f = shared(1, 0);
    try (SnapshotStore store = open()) {
      f.storeContent(store);
    }
    byte[] three = f.contentMeta("a").getContent(3).getSha256().toByteArray();
    byte[] four = f.contentMeta("a").getContent(4).getSha256().toByteArray();
    byte[] original;
    byte[] other;
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      original = raw.get(RocksHandles.CONTENT_CHUNKS, three);
      other = ValueFrames.unwrap(four, raw.get(RocksHandles.CONTENT_CHUNKS, four), () -> "4");
    }
    byte[] payload = ValueFrames.unwrap(three, original, () -> "3");
    Map<String, byte[]> stored =
        Map.of(
            "longer",
            Arrays.copyOf(payload, payload.length + 100),
            "shorter",
            Arrays.copyOf(payload, payload.length / 2),
            "another chunk's bytes",
            other);
    for (Map.Entry<String, byte[]> e : stored.entrySet()) {
      try (RawDb raw = new RawDb(tmp.resolve("db"))) {
        raw.put(RocksHandles.CONTENT_CHUNKS, three, ValueFrames.wrap(three, e.getValue()));
      }
      try (SnapshotStore store = open()) {
        assertThatThrownBy(() -> f.readState(store, "a"))
            .as(e.getKey())
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining("snapshot 1, worker a, content chunk 3");
        assertThatThrownBy(() -> store.verifyIntegrity(1))
            .as(e.getKey())
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining("content chunk 3");
      }
    }
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.put(RocksHandles.CONTENT_CHUNKS, three, original);
    }
    try (SnapshotStore store = open()) {
      assertReadsBack(store, f);
    }
  }

  /** Deletes committed snapshot {@code id} the next time the chunks check under their lock. */
  private static void deleteOnce(RocksSnapshotStore store, long id) {
    AtomicBoolean done = new AtomicBoolean();
    store.meanwhileOutsideContentLock(
        () -> {
          if (done.compareAndSet(false, true)) {
            assertThat(store.delete(id)).isTrue();
          }
        });
  }

  private static void commitTheRest(SnapshotStore store, SnapshotFixture f) {
    f.writeWorkerContent(store, "b");
    f.writeWorkerContent(store, "c");
    f.writeChannels(store);
    store.commit(f.complete());
  }

  private static int crc(byte[] data) {
    return SnapshotFixture.crc(data);
  }
}
