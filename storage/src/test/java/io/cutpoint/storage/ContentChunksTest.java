package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Content-addressed states in the RocksDB store: a chunk is stored once for every snapshot and
 * worker that uses it, kept while a snapshot that uses it is kept, deleted with the last one, and
 * never lost under a pending snapshot that holds it; what a crash leaves is collected on open; a
 * damaged or missing chunk fails the read of every snapshot that uses it.
 */
class ContentChunksTest {
  private static final int CHUNK = 1024;

  @TempDir Path tmp;

  private RocksSnapshotStore open() {
    return RocksSnapshotStore.open(tmp.resolve("db"), RocksSnapshotStore.Options.DEFAULT);
  }

  private static SnapshotFixture shared(long id, int changedChunk) {
    return SnapshotFixture.shared(id, changedChunk, CHUNK);
  }

  private List<byte[]> bodies() throws Exception {
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      return raw.allKeys(RocksHandles.CONTENT_CHUNKS);
    }
  }

  private static Set<ByteString> hashesOf(SnapshotFixture... fixtures) {
    Set<ByteString> all = new HashSet<>();
    for (SnapshotFixture f : fixtures) {
      for (String w : SnapshotFixture.WORKERS) {
        f.contentMeta(w).getContentList().forEach(c -> all.add(c.getSha256()));
      }
    }
    return all;
  }

  @Test
  void aChunkIsStoredOnceAcrossWorkersAndSnapshotsAndEachSnapshotReadsBackItsOwnState()
      throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    try (RocksSnapshotStore store = open()) {
      store.createPending(first.pending());
      int sentA = first.writeWorkerContent(store, "a");
      first.writeWorkerContent(store, "b");
      first.writeWorkerContent(store, "c");
      first.writeChannels(store);
      store.commit(first.complete());
      assertThat(sentA).as("a fresh store holds nothing").isEqualTo(16);

      store.createPending(second.pending());
      List<Integer> sent = new ArrayList<>();
      for (String w : SnapshotFixture.WORKERS) {
        sent.add(second.writeWorkerContent(store, w));
      }
      second.writeChannels(store);
      store.commit(second.complete());
      SnapshotManifest committed = store.manifest(2).orElseThrow();
      // chunk 0 is new to the store (the first snapshot changed it everywhere): it goes up once
      assertThat(sent)
          .as("each worker's changed chunk goes up, and once chunk 0")
          .containsExactly(2, 1, 1);
      assertThat(committed.getPieces(0).getStateChunks()).isEqualTo(16);
      assertThat(committed.getPieces(0).getMeta().getContentCount())
          .as("the manifest's copy of the meta leaves the chunk list out")
          .isZero();
      assertThat(store.workerMeta(2, "a").orElseThrow().getContentCount()).isEqualTo(16);
      for (SnapshotFixture f : List.of(first, second)) {
        for (String w : SnapshotFixture.WORKERS) {
          assertThat(f.readState(store, w)).isEqualTo(f.states.get(w));
        }
        store.verifyIntegrity(f.id);
      }
    }
    assertThat(bodies()).hasSize(hashesOf(first, second).size());
  }

  @Test
  void deletingASnapshotKeepsTheChunksAnotherUsesAndTheLastDeletionFreesThem() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    try (RocksSnapshotStore store = open()) {
      first.storeContent(store);
      second.storeContent(store);
      assertThat(store.delete(1)).isTrue();
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(second.readState(store, w)).isEqualTo(second.states.get(w));
      }
    }
    assertThat(bodies()).hasSize(hashesOf(second).size());
    try (RocksSnapshotStore store = open()) {
      assertThat(store.delete(2)).isTrue();
    }
    assertThat(bodies()).isEmpty();
  }

  @Test
  void retentionAndPinsKeepTheChunksOfKeptSnapshots() throws Exception {
    List<SnapshotFixture> all = new ArrayList<>();
    try (RocksSnapshotStore store = open()) {
      for (int id = 1; id <= 5; id++) {
        SnapshotFixture f = shared(id, id);
        f.storeContent(store);
        all.add(f);
      }
      store.setPinned(1, true);
      assertThat(store.applyRetention(2)).containsExactlyInAnyOrder(2L, 3L);
      for (SnapshotFixture f : List.of(all.get(0), all.get(3), all.get(4))) {
        for (String w : SnapshotFixture.WORKERS) {
          assertThat(f.readState(store, w)).isEqualTo(f.states.get(w));
        }
      }
    }
    assertThat(bodies()).hasSize(hashesOf(all.get(0), all.get(3), all.get(4)).size());
  }

  @Test
  void aPendingSnapshotKeepsTheChunksItHoldsWhenTheSnapshotThatStoredThemIsDeleted()
      throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 0); // the same chunks but for chunk 0
    try (RocksSnapshotStore store = open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(second.writeWorkerContent(store, w)).isEqualTo(1);
      }
      assertThat(store.delete(1)).as("deleted while 2 holds its chunks").isTrue();
      second.writeChannels(store);
      store.commit(second.complete());
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(second.readState(store, w)).isEqualTo(second.states.get(w));
      }
    }
    assertThat(bodies()).hasSize(hashesOf(second).size());
  }

  @Test
  void anAbortedSnapshotTakesTheChunksOnlyItUploadedWithIt() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 3);
    try (RocksSnapshotStore store = open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(store, w));
      store.finish(
          second.pending().toBuilder()
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
              .setReason("test")
              .build());
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(first.readState(store, w)).isEqualTo(first.states.get(w));
      }
    }
    assertThat(bodies()).hasSize(hashesOf(first).size());
  }

  @Test
  void commitRefusesAStateWhoseChunksWereNeitherUploadedNorHeld() {
    SnapshotFixture f = shared(1, 0);
    try (RocksSnapshotStore store = open()) {
      store.createPending(f.pending());
      f.writeWorkerContent(store, "a");
      f.writeWorkerContent(store, "b");
      store.putWorkerMeta(1, f.contentMeta("c")); // no chunk of c arrived
      f.writeChannels(store);
      assertThatThrownBy(() -> store.commit(f.complete()))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("worker c")
          .hasMessageContaining("content chunk 0")
          .hasMessageContaining("neither uploaded nor held");
      assertThat(store.manifest(1).orElseThrow().getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    }
  }

  @Test
  void commitRefusesAChunkListedWithAnotherLengthOrCrcThanStored() {
    SnapshotFixture f = shared(1, 0);
    try (RocksSnapshotStore store = open()) {
      store.createPending(f.pending());
      f.writeWorkerContent(store, "a");
      f.writeWorkerContent(store, "b");
      f.writeWorkerContent(store, "c");
      LocalSnapshotMeta lying = f.contentMeta("c");
      LocalSnapshotMeta.Builder b = lying.toBuilder();
      b.setContent(
          1, lying.getContent(1).toBuilder().setCrc32C(lying.getContent(1).getCrc32C() ^ 1));
      store.putWorkerMeta(1, b.build());
      f.writeChannels(store);
      assertThatThrownBy(() -> store.commit(f.complete()))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("content chunk 1");
    }
  }

  @Test
  void openingCollectsTheChunksOfSnapshotsThatNeverCommitted() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 7);
    try (RocksSnapshotStore store = open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(store, w));
      // closed with 2 pending: a crash
    }
    assertThat(bodies()).hasSize(hashesOf(first, second).size());
    try (RocksSnapshotStore store = open()) {
      assertThat(store.abortedOnOpen()).containsExactly(2L);
      Set<ByteString> onlySecond = hashesOf(second);
      onlySecond.removeAll(hashesOf(first));
      assertThat(store.contentChunksCollectedOnOpen()).isEqualTo(onlySecond.size()).isEqualTo(4);
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(first.readState(store, w)).isEqualTo(first.states.get(w));
      }
    }
    assertThat(bodies()).hasSize(hashesOf(first).size());
  }

  @Test
  void aDamagedChunkFailsTheReadOfEverySnapshotAndWorkerThatUsesIt() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    try (RocksSnapshotStore store = open()) {
      first.storeContent(store);
      second.storeContent(store);
    }
    ByteString everywhere = first.contentMeta("a").getContent(9).getSha256();
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.flipByte(RocksHandles.CONTENT_CHUNKS, everywhere.toByteArray(), 100);
    }
    try (RocksSnapshotStore store = open()) {
      for (SnapshotFixture f : List.of(first, second)) {
        for (String w : SnapshotFixture.WORKERS) {
          assertThatThrownBy(() -> f.readState(store, w))
              .isInstanceOf(CorruptionException.class)
              .hasMessageContaining(
                  "snapshot " + f.id + ", worker " + w + ", content chunk 9 (sha256 ")
              .hasMessageContaining("CRC32C mismatch");
        }
        assertThatThrownBy(() -> store.verifyIntegrity(f.id))
            .isInstanceOf(CorruptionException.class);
      }
      assertThat(store.damaged()).containsOnlyKeys(1L, 2L);
    }
  }

  @Test
  void aMissingChunkFailsOnlyTheSnapshotsThatUseIt() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    try (RocksSnapshotStore store = open()) {
      first.storeContent(store);
      second.storeContent(store);
    }
    ByteString onlySecondB = second.contentMeta("b").getContent(5).getSha256();
    try (RawDb raw = new RawDb(tmp.resolve("db"))) {
      raw.delete(RocksHandles.CONTENT_CHUNKS, onlySecondB.toByteArray());
    }
    try (RocksSnapshotStore store = open()) {
      assertThatThrownBy(() -> second.readState(store, "b"))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("snapshot 2, worker b, content chunk 5")
          .hasMessageEndingWith(": missing");
      assertThat(second.readState(store, "a")).isEqualTo(second.states.get("a"));
      assertThat(first.readState(store, "b")).isEqualTo(first.states.get("b"));
      assertThat(store.damaged()).containsOnlyKeys(2L);
    }
  }

  @Test
  void aPieceWithNumberedChunksReadsThemAndReferencesNoContentChunkWhateverItsMetaLists()
      throws Exception {
    SnapshotFixture copied = shared(1, 0);
    try (RocksSnapshotStore store = open()) {
      // as a copy from a store that keeps numbered chunks writes it: the worker's list stays
      store.createPending(copied.pending());
      for (String w : SnapshotFixture.WORKERS) {
        store.putWorkerMeta(1, copied.contentMeta(w));
        List<byte[]> chunks = copied.chunks(w);
        for (int i = 0; i < chunks.size(); i++) {
          store.putStateChunk(1, w, i, chunks.get(i), SnapshotFixture.crc(chunks.get(i)));
        }
      }
      copied.writeChannels(store);
      store.commit(copied.complete());
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(copied.readState(store, w)).isEqualTo(copied.states.get(w));
      }
      store.verifyIntegrity(1);
      SnapshotFixture next = shared(2, 0);
      store.createPending(next.pending());
      assertThat(next.writeWorkerContent(store, "a"))
          .as("no content chunk was referenced by the copy")
          .isEqualTo(16);
    }
  }

  @Test
  void holdingRefusesAHashThatIsNotASha256AndASnapshotThatIsNotPending() {
    SnapshotFixture f = shared(1, 0);
    try (RocksSnapshotStore store = open()) {
      f.storeContent(store);
      assertThatThrownBy(() -> store.holdChunks(1, List.of(ByteString.copyFrom(new byte[31]))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("a SHA-256 has 32 bytes, got 31");
      assertThatThrownBy(() -> store.holdChunks(1, List.of(ByteString.copyFrom(new byte[32]))))
          .isInstanceOf(NotPendingException.class);
      assertThatThrownBy(() -> store.holdChunks(9, List.of()))
          .isInstanceOf(NoSuchSnapshotException.class);
    }
  }
}
