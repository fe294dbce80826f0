package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ha.FencedException;
import io.cutpoint.ha.S3SnapshotStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cases of {@code ContentChunksTest}, run against {@link S3SnapshotStore} on a real ZooKeeper
 * and a real S3 API server: a chunk is one object for every snapshot and worker that uses it, kept
 * while a snapshot that uses it is kept or a pending one holds it, deleted once none does; what a
 * crashed leader leaves is collected by the next one; a damaged or missing chunk fails the read of
 * every snapshot that uses it; a fenced store deletes no chunk.
 */
class S3ContentChunksTest {
  private static final int CHUNK = 1024;
  private static HaTestbed bed;
  private S3SnapshotStore.Location where;

  @BeforeAll
  static void start() throws Exception {
    bed = new HaTestbed();
  }

  @AfterAll
  static void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void freshLocation() {
    where = bed.fresh();
  }

  private static SnapshotFixture shared(long id, int changedChunk) {
    return SnapshotFixture.shared(id, changedChunk, CHUNK);
  }

  /** The content chunk objects in the bucket, by the hash their key names. */
  private Set<String> chunkObjects() {
    Set<String> out = new HashSet<>();
    for (String key : bed.objects(where)) {
      if (key.startsWith(where.prefix() + "/chunks/")) {
        out.add(key.substring(key.lastIndexOf('/') + 1, key.indexOf('-', key.lastIndexOf('/'))));
      }
    }
    return out;
  }

  private static Set<String> hashesOf(SnapshotFixture... fixtures) {
    Set<String> all = new HashSet<>();
    for (SnapshotFixture f : fixtures) {
      for (String w : SnapshotFixture.WORKERS) {
        f.contentMeta(w).getContentList().forEach(c -> all.add(hex(c.getSha256())));
      }
    }
    return all;
  }

  private static String hex(ByteString hash) {
    return HexFormat.of().formatHex(hash.toByteArray());
  }

  private String chunkKey(ContentChunk c) {
    return where.prefix()
        + "/chunks/"
        + hex(c.getSha256())
        + "-"
        + c.getLength()
        + "-"
        + HexFormat.of().toHexDigits(c.getCrc32C());
  }

  private static void assertReadsBack(SnapshotStore store, SnapshotFixture... fixtures) {
    for (SnapshotFixture f : fixtures) {
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(f.readState(store, w)).isEqualTo(f.states.get(w));
      }
      store.verifyIntegrity(f.id);
    }
  }

  @Test
  void aChunkIsOneObjectAcrossWorkersAndSnapshotsAndEachSnapshotReadsBackItsOwnState() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    S3SnapshotStore store = bed.open(where);
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
    assertThat(sent)
        .as("each worker's changed chunk goes up, and once chunk 0")
        .containsExactly(2, 1, 1);
    assertThat(bed.objects(where, 2))
        .as("the snapshot's directory holds no state chunk")
        .noneMatch(k -> k.contains("/state/"));
    assertReadsBack(store, first, second);
    assertThat(chunkObjects()).isEqualTo(hashesOf(first, second));
    assertThat(store.contentChunks()).isEqualTo(hashesOf(first, second).size());
    store.close();

    S3SnapshotStore next = bed.open(where);
    assertReadsBack(next, first, second);
    assertThat(next.contentChunksCollectedOnOpen()).isZero();
    SnapshotFixture third = shared(3, 5);
    next.createPending(third.pending());
    assertThat(third.writeWorkerContent(next, "a"))
        .as("only its own chunk goes up: a new leader holds those it found in the bucket")
        .isEqualTo(1);
  }

  @Test
  void deletingASnapshotKeepsTheChunksAnotherUsesAndTheLastDeletionFreesThem() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    S3SnapshotStore store = bed.open(where);
    first.storeContent(store);
    second.storeContent(store);
    assertThat(store.delete(1)).isTrue();
    assertReadsBack(store, second);
    assertThat(chunkObjects()).isEqualTo(hashesOf(second));
    assertThat(store.delete(2)).isTrue();
    assertThat(chunkObjects()).isEmpty();
  }

  @Test
  void retentionAndPinsKeepTheChunksOfKeptSnapshots() {
    List<SnapshotFixture> all = new ArrayList<>();
    S3SnapshotStore store = bed.open(where);
    for (int id = 1; id <= 5; id++) {
      SnapshotFixture f = shared(id, id);
      f.storeContent(store);
      all.add(f);
    }
    store.setPinned(1, true);
    assertThat(store.applyRetention(2)).containsExactlyInAnyOrder(2L, 3L);
    assertReadsBack(store, all.get(0), all.get(3), all.get(4));
    assertThat(chunkObjects()).isEqualTo(hashesOf(all.get(0), all.get(3), all.get(4)));
  }

  @Test
  void aPendingSnapshotKeepsTheChunksItHoldsWhenTheSnapshotThatStoredThemIsDeleted() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 0); // the same chunks but for chunk 0
    S3SnapshotStore store = bed.open(where);
    first.storeContent(store);
    store.createPending(second.pending());
    for (String w : SnapshotFixture.WORKERS) {
      assertThat(second.writeWorkerContent(store, w)).isEqualTo(1);
    }
    assertThat(store.delete(1)).as("deleted while 2 holds its chunks").isTrue();
    second.writeChannels(store);
    store.commit(second.complete());
    assertReadsBack(store, second);
    assertThat(chunkObjects()).isEqualTo(hashesOf(second));
  }

  @Test
  void anAbortedSnapshotTakesTheChunksOnlyItUploadedWithIt() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 3);
    S3SnapshotStore store = bed.open(where);
    first.storeContent(store);
    store.createPending(second.pending());
    SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(store, w));
    assertThat(chunkObjects()).isEqualTo(hashesOf(first, second));
    store.finish(
        second.pending().toBuilder()
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
            .setReason("test")
            .build());
    assertReadsBack(store, first);
    assertThat(chunkObjects()).isEqualTo(hashesOf(first));
  }

  @Test
  void commitRefusesAStateWhoseChunksWereNeitherUploadedNorHeldOrAreListedWithAnotherCrc() {
    SnapshotFixture f = shared(1, 0);
    S3SnapshotStore store = bed.open(where);
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

    f.writeWorkerContent(store, "c");
    LocalSnapshotMeta lying = f.contentMeta("c");
    LocalSnapshotMeta.Builder b = lying.toBuilder();
    b.setContent(1, lying.getContent(1).toBuilder().setCrc32C(lying.getContent(1).getCrc32C() ^ 1));
    store.putWorkerMeta(1, b.build());
    assertThatThrownBy(() -> store.commit(f.complete()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("content chunk 1");
    assertThat(store.manifest(1).orElseThrow().getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
  }

  @Test
  void theNextLeaderCollectsTheChunksOfSnapshotsThatNeverCommitted() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 7);
    S3SnapshotStore crashed = bed.open(where);
    first.storeContent(crashed);
    crashed.createPending(second.pending());
    SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(crashed, w));
    assertThat(chunkObjects()).isEqualTo(hashesOf(first, second));

    S3SnapshotStore next = bed.open(where); // takes the term: the first leader is gone
    assertThat(next.abortedOnOpen()).containsExactly(2L);
    Set<String> onlySecond = hashesOf(second);
    onlySecond.removeAll(hashesOf(first));
    assertThat(next.contentChunksCollectedOnOpen()).isEqualTo(onlySecond.size()).isEqualTo(4);
    assertThat(chunkObjects()).isEqualTo(hashesOf(first));
    assertReadsBack(next, first);
  }

  @Test
  void aDeferredSweepCollectsToo() {
    SnapshotFixture first = shared(1, 0);
    S3SnapshotStore crashed = bed.open(where);
    crashed.createPending(first.pending());
    SnapshotFixture.WORKERS.forEach(w -> first.writeWorkerContent(crashed, w));

    S3SnapshotStore next = bed.openDeferringSweep(where);
    assertThat(chunkObjects()).as("opening left the bucket alone").hasSize(hashesOf(first).size());
    next.sweepLeftovers();
    assertThat(next.contentChunksCollectedOnOpen()).isEqualTo(hashesOf(first).size());
    assertThat(chunkObjects()).isEmpty();
  }

  @Test
  void aDamagedChunkFailsTheReadOfEverySnapshotAndWorkerThatUsesIt() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    S3SnapshotStore store = bed.open(where);
    first.storeContent(store);
    second.storeContent(store);
    String everywhere = chunkKey(first.contentMeta("a").getContent(9));
    byte[] raw = bed.getRaw(everywhere);
    raw[100] ^= 0x01;
    bed.putRaw(everywhere, raw);
    for (SnapshotFixture f : List.of(first, second)) {
      for (String w : SnapshotFixture.WORKERS) {
        assertThatThrownBy(() -> f.readState(store, w))
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining(
                "snapshot " + f.id + ", worker " + w + ", content chunk 9 (sha256 ");
      }
      assertThatThrownBy(() -> store.verifyIntegrity(f.id)).isInstanceOf(CorruptionException.class);
    }
    assertThat(store.damaged()).containsOnlyKeys(1L, 2L);
  }

  @Test
  void aMissingChunkFailsOnlyTheSnapshotsThatUseIt() {
    SnapshotFixture first = shared(1, 0);
    SnapshotFixture second = shared(2, 5);
    S3SnapshotStore store = bed.open(where);
    first.storeContent(store);
    second.storeContent(store);
    bed.deleteRaw(chunkKey(second.contentMeta("b").getContent(5)));
    assertThatThrownBy(() -> second.readState(store, "b"))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("snapshot 2, worker b, content chunk 5")
        .hasMessageEndingWith(": missing");
    assertThat(second.readState(store, "a")).isEqualTo(second.states.get("a"));
    assertThat(first.readState(store, "b")).isEqualTo(first.states.get("b"));
    assertThat(store.damaged()).containsOnlyKeys(2L);
  }

  @Test
  void aFencedStoreDeletesNoChunkAndTheLeaderCollectsIt() {
    SnapshotFixture first = shared(1, 0);
    S3SnapshotStore old = bed.open(where);
    first.storeContent(old);
    S3SnapshotStore leader = bed.open(where);
    // a chunk object no snapshot uses, as an upload of an aborted snapshot leaves it
    SnapshotFixture stray = shared(2, 0);
    ContentChunk unused = stray.contentMeta("a").getContent(0);
    bed.putRaw(chunkKey(unused), new byte[unused.getLength()]);
    assertThat(chunkObjects()).contains(hex(unused.getSha256()));

    assertThatThrownBy(old::sweepLeftovers).isInstanceOf(FencedException.class);
    assertThat(chunkObjects())
        .as("the fenced store deleted nothing")
        .contains(hex(unused.getSha256()));

    leader.sweepLeftovers();
    assertThat(leader.contentChunksCollectedOnOpen()).isEqualTo(1);
    assertThat(chunkObjects()).isEqualTo(hashesOf(first));
    assertReadsBack(leader, first);
  }

  @Test
  void holdingRefusesAHashThatIsNotASha256AndASnapshotThatIsNotPending() {
    SnapshotFixture f = shared(1, 0);
    S3SnapshotStore store = bed.open(where);
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
