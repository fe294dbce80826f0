package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What every store that shares content-addressed chunks does: a chunk is stored once for every
 * snapshot and worker that uses it, kept while a snapshot that uses it is kept, deleted with the
 * last one, and never lost under a pending snapshot that holds it; what a crash leaves is collected
 * on open; a damaged or missing chunk fails the read of every snapshot that uses it, and only
 * those. A subclass opens its store and reaches its chunks behind the store's back.
 */
abstract class ContentChunksContract {
  static final int CHUNK = 1024;

  /**
   * Opens the store; after {@link SnapshotStore#close()} with snapshots pending, as after a crash
   * (for a shared store: as the next leader).
   */
  abstract SnapshotStore open();

  /** The hashes of the chunks stored; the store is closed. */
  abstract Set<ByteString> stored() throws Exception;

  /** Flips a byte of a stored chunk's bytes; the store is closed. */
  abstract void damage(ByteString hash) throws Exception;

  /** Deletes a stored chunk; the store is closed. */
  abstract void remove(ByteString hash) throws Exception;

  /** How many unused chunks opening {@code store} deleted. */
  abstract int collectedOnOpen(SnapshotStore store);

  static SnapshotFixture shared(long id, int changedChunk) {
    return SnapshotFixture.shared(id, changedChunk, CHUNK);
  }

  static Set<ByteString> hashesOf(SnapshotFixture... fixtures) {
    Set<ByteString> all = new HashSet<>();
    for (SnapshotFixture f : fixtures) {
      for (String w : SnapshotFixture.WORKERS) {
        f.contentMeta(w).getContentList().forEach(c -> all.add(c.getSha256()));
      }
    }
    return all;
  }

  static void assertReadsBack(SnapshotStore store, SnapshotFixture... fixtures) {
    for (SnapshotFixture f : fixtures) {
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(f.readState(store, w)).isEqualTo(f.states.get(w));
      }
      store.verifyIntegrity(f.id);
    }
  }

  @Test
  void aChunkIsStoredOnceAcrossWorkersAndSnapshotsAndEachSnapshotReadsBackItsOwnState()
      throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    try (SnapshotStore store = open()) {
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
      assertReadsBack(store, first, second);
    }
    assertThat(stored()).isEqualTo(hashesOf(first, second));
    try (SnapshotStore store = open()) {
      assertReadsBack(store, first, second);
      assertThat(collectedOnOpen(store)).isZero();
      SnapshotFixture third = shared(3, 5);
      store.createPending(third.pending());
      assertThat(third.writeWorkerContent(store, "a"))
          .as("only its own chunk goes up: the reopened store holds the others")
          .isEqualTo(1);
    }
  }

  @Test
  void aPendingSnapshotsContentStateReadsBackBeforeItCommits() {
    SnapshotFixture f = shared(1, 0);
    try (SnapshotStore store = open()) {
      store.createPending(f.pending());
      f.writeWorkerContent(store, "a");
      assertThat(f.readState(store, "a")).isEqualTo(f.states.get("a"));
    }
  }

  @Test
  void deletingASnapshotKeepsTheChunksAnotherUsesAndTheLastDeletionFreesThem() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    try (SnapshotStore store = open()) {
      first.storeContent(store);
      second.storeContent(store);
      assertThat(store.delete(1)).isTrue();
      assertReadsBack(store, second);
    }
    assertThat(stored()).isEqualTo(hashesOf(second));
    try (SnapshotStore store = open()) {
      assertThat(store.delete(2)).isTrue();
    }
    assertThat(stored()).isEmpty();
  }

  @Test
  void retentionAndPinsKeepTheChunksOfKeptSnapshots() throws Exception {
    List<SnapshotFixture> all = new ArrayList<>();
    try (SnapshotStore store = open()) {
      for (int id = 1; id <= 5; id++) {
        SnapshotFixture f = shared(id, id);
        f.storeContent(store);
        all.add(f);
      }
      store.setPinned(1, true);
      assertThat(store.applyRetention(2)).containsExactlyInAnyOrder(2L, 3L);
      assertReadsBack(store, all.get(0), all.get(3), all.get(4));
    }
    assertThat(stored()).isEqualTo(hashesOf(all.get(0), all.get(3), all.get(4)));
  }

  @Test
  void aPendingSnapshotKeepsTheChunksItHoldsWhenTheSnapshotThatStoredThemIsDeleted()
      throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 0); // the same chunks but for chunk 0
    try (SnapshotStore store = open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(second.writeWorkerContent(store, w)).isEqualTo(1);
      }
      assertThat(store.delete(1)).as("deleted while 2 holds its chunks").isTrue();
      second.writeChannels(store);
      store.commit(second.complete());
      assertReadsBack(store, second);
    }
    assertThat(stored()).isEqualTo(hashesOf(second));
  }

  @Test
  void anAbortedSnapshotTakesTheChunksOnlyItUploadedWithIt() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 3);
    try (SnapshotStore store = open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(store, w));
      store.finish(
          second.pending().toBuilder()
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
              .setReason("test")
              .build());
      assertReadsBack(store, first);
    }
    assertThat(stored()).isEqualTo(hashesOf(first));
  }

  @Test
  void commitRefusesAStateWhoseChunksWereNeitherUploadedNorHeld() {
    SnapshotFixture f = shared(1, 0);
    try (SnapshotStore store = open()) {
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
    try (SnapshotStore store = open()) {
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
    try (SnapshotStore store = open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(store, w));
      // closed with 2 pending: a crash
    }
    assertThat(stored()).isEqualTo(hashesOf(first, second));
    try (SnapshotStore store = open()) {
      assertThat(store.manifest(2).orElseThrow().getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
      Set<ByteString> onlySecond = hashesOf(second);
      onlySecond.removeAll(hashesOf(first));
      assertThat(collectedOnOpen(store)).isEqualTo(onlySecond.size()).isEqualTo(4);
      assertReadsBack(store, first);
    }
    assertThat(stored()).isEqualTo(hashesOf(first));
  }

  /** Stores {@code first} and {@code second} and closes the store. */
  private void storeBoth(SnapshotFixture first, SnapshotFixture second) {
    try (SnapshotStore store = open()) {
      first.storeContent(store);
      second.storeContent(store);
    }
  }

  @Test
  void aDamagedChunkFailsTheReadOfEverySnapshotAndWorkerThatUsesIt() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    storeBoth(first, second);
    damage(first.contentMeta("a").getContent(9).getSha256());
    try (SnapshotStore store = open()) {
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
  void verifyLeavesAStateItsWorkerHoldsUnreadOnlyWhenItIsTheStoredOne() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    storeBoth(first, second);
    damage(second.contentMeta("b").getContent(5).getSha256()); // only b's state in 2 uses it
    LocalSnapshotMeta a = second.contentMeta("a");
    LocalSnapshotMeta b = second.contentMeta("b");
    HeldState bHolds = new HeldState(b.getStateBytes(), b.getStateCrc32C());
    try (SnapshotStore store = open()) {
      store.verifyIntegrity(2, Map.of("b", bHolds));
      for (Map<String, HeldState> notB :
          List.of(
              Map.<String, HeldState>of(),
              Map.of("a", new HeldState(a.getStateBytes(), a.getStateCrc32C())),
              Map.of("b", new HeldState(b.getStateBytes(), ~b.getStateCrc32C())),
              Map.of("b", new HeldState(b.getStateBytes() + 1, b.getStateCrc32C())))) {
        assertThatThrownBy(() -> store.verifyIntegrity(2, notB))
            .as("held: %s", notB)
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining("snapshot 2, worker b, content chunk 5");
      }
      assertThatThrownBy(() -> second.readState(store, "b"))
          .as("a download of b's state still checks every chunk")
          .isInstanceOf(CorruptionException.class);
    }
  }

  @Test
  void aMissingChunkFailsOnlyTheSnapshotsThatUseIt() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    storeBoth(first, second);
    remove(second.contentMeta("b").getContent(5).getSha256());
    try (SnapshotStore store = open()) {
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
  void aPieceWithNumberedChunksReadsThemAndReferencesNoContentChunkWhateverItsMetaLists() {
    SnapshotFixture copied = shared(1, 0);
    try (SnapshotStore store = open()) {
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
      assertReadsBack(store, copied);
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
    try (SnapshotStore store = open()) {
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

  /**
   * A pending snapshot holds the last state's chunks (its early question), the only snapshot that
   * used them is deleted meanwhile, which keeps their bodies for the hold, and the pending one then
   * commits a state that does not use one of them: its commit deletes that body, as a snapshot that
   * ends without a commit does, instead of leaving it until the next open. The same for a chunk an
   * attempt uploaded before it was discarded, which the attempt that went through did not send.
   */
  @Test
  void aChunkHeldOrUploadedButNotInTheCommittedStateGoesWithTheCommit() throws Exception {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 0); // the same chunks as the first but for chunk 0
    SnapshotFixture attempt = shared(3, 1); // what worker a sent first, then discarded
    try (SnapshotStore store = open()) {
      first.storeContent(store);
      store.createPending(second.pending());
      List<ByteString> lastState = new ArrayList<>();
      first.contentMeta("a").getContentList().forEach(c -> lastState.add(c.getSha256()));
      assertThat(store.holdChunks(2, lastState)).containsOnly(true);
      assertThat(store.delete(1)).isTrue(); // an operator's delete, or retention
      List<byte[]> tried = attempt.chunks("a");
      store.putContentChunk(
          2,
          "a",
          1,
          attempt.contentMeta("a").getContent(1).getSha256(),
          tried.get(1),
          SnapshotFixture.crc(tried.get(1)));
      store.discardPieces(2, "a");
      SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(store, w));
      second.writeChannels(store);
      store.commit(second.complete());
      assertReadsBack(store, second);
    }
    assertThat(stored()).as("before a reopen collects anything").isEqualTo(hashesOf(second));
  }

  /**
   * A state read while its snapshot is deleted (retention, an operator) loses its chunks under it:
   * the read says the snapshot is gone, not that the store is damaged, and nothing is marked.
   */
  @Test
  void aReadThatTheSnapshotsDeletionOvertakesSaysItIsGoneAndMarksNoDamage() {
    SnapshotFixture only = shared(1, 0);
    try (SnapshotStore store = open()) {
      only.storeContent(store);
      int[] chunks = {0};

      assertThatThrownBy(
              () ->
                  store.readState(
                      1,
                      "a",
                      chunk -> {
                        if (chunks[0]++ == 0) {
                          assertThat(store.delete(1)).isTrue(); // after the first chunk
                        }
                      }))
          .isInstanceOf(NoSuchSnapshotException.class)
          .hasMessageContaining("deleted while it was read");
      assertThat(store.damaged()).isEmpty();
    }
  }
}
