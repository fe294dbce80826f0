package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.ha.S3SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Damage to the objects and to the catalog of an {@link S3SnapshotStore}, made through the S3 API
 * and ZooKeeper behind the store's back: every read path throws {@link CorruptionException} naming
 * the piece, no damaged byte reaches a consumer, and the snapshot is reported damaged.
 */
class S3CorruptionTest {
  private static HaTestbed bed;
  private S3SnapshotStore.Location where;
  private S3SnapshotStore store;
  private SnapshotFixture snap;

  @BeforeAll
  static void start() throws Exception {
    bed = new HaTestbed();
  }

  @AfterAll
  static void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void storeOneSnapshot() {
    where = bed.fresh();
    store = bed.open(where);
    snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    snap.store(store);
  }

  private String chunk(String worker, int index) {
    return HaTestbed.key(where, snap.id, worker + "/state/" + String.format("%010d", index));
  }

  private void flip(String key, int offset) {
    byte[] raw = bed.getRaw(key);
    int at = offset < 0 ? raw.length + offset : offset;
    raw[at] ^= 0x01;
    bed.putRaw(key, raw);
  }

  @ParameterizedTest(name = "byte {0} of the object")
  @ValueSource(ints = {0, 1, 5, -1})
  void aFlippedByteInAStateChunkFailsReadStateAndVerify(int offset) {
    flip(chunk("b", 1), offset);
    List<byte[]> received = new ArrayList<>();
    assertThatThrownBy(() -> store.readState(snap.id, "b", received::add))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("snapshot " + snap.id + ", worker b, state chunk 1");
    assertThat(received)
        .as("only the chunk before the damaged one reached the consumer")
        .hasSize(1);
    assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("worker b, state chunk 1");
    assertThat(store.damaged()).containsKey(snap.id);
    assertThat(store.manifest(snap.id).orElseThrow().getDamage()).contains("state chunk 1");
  }

  @Test
  void aFlippedByteInAChannelBatchFailsReadChannelAndVerify() {
    ChannelId bc = ChannelId.of("b", "c");
    long first = snap.recordings.get(bc).get(0).seq();
    flip(HaTestbed.key(where, snap.id, "c/channels/b/" + String.format("%019d", first)), -2);
    assertThatThrownBy(() -> store.readChannel(snap.id, bc))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("snapshot " + snap.id + ", channel b->c, batch from #" + first);
    assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("batch from #" + first);
  }

  @Test
  void aFlippedByteInWorkerMetadataFailsWorkerMetaReadStateAndVerify() {
    flip(HaTestbed.key(where, snap.id, "c/meta"), 7);
    assertThatThrownBy(() -> store.workerMeta(snap.id, "c"))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("worker c, metadata");
    assertThatThrownBy(() -> store.readState(snap.id, "c", chunk -> {}))
        .isInstanceOf(CorruptionException.class);
    assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
        .isInstanceOf(CorruptionException.class);
  }

  @Test
  void anObjectCopiedUnderAnotherKeyFailsItsCheck() {
    bed.putRaw(chunk("a", 1), bed.getRaw(chunk("a", 0)));
    assertThatThrownBy(() -> store.readState(snap.id, "a", chunk -> {}))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("worker a, state chunk 1: CRC32C mismatch");
  }

  @Test
  void aDeletedMiddleChunkFailsBeforeTheChunkAfterIt() {
    bed.deleteRaw(chunk("a", 1));
    List<byte[]> received = new ArrayList<>();
    assertThatThrownBy(() -> store.readState(snap.id, "a", received::add))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("worker a, state chunk 1: missing");
    assertThat(received).hasSize(1);
  }

  @Test
  void aDeletedLastChunkIsReported() {
    int chunks = (snap.states.get("a").length + snap.chunkSize - 1) / snap.chunkSize;
    bed.deleteRaw(chunk("a", chunks - 1));
    assertThatThrownBy(() -> store.readState(snap.id, "a", chunk -> {}))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(
            "state chunk " + (chunks - 1) + ": missing (" + chunks + " chunks committed)");
    assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
        .isInstanceOf(CorruptionException.class);
  }

  @Test
  void aDeletedChannelBatchOrMetadataFailsVerify() {
    ChannelId bc = ChannelId.of("b", "c");
    long first = snap.recordings.get(bc).get(0).seq();
    bed.deleteRaw(HaTestbed.key(where, snap.id, "c/channels/b/" + String.format("%019d", first)));
    assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("worker c, incoming channels:")
        .hasMessageContaining("committed");
    bed.deleteRaw(HaTestbed.key(where, snap.id, "a/meta"));
    assertThat(store.workerMeta(snap.id, "a")).isEmpty();
    assertThatThrownBy(() -> store.readState(snap.id, "a", chunk -> {}))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("worker a, metadata: missing");
  }

  @Test
  void aFlippedByteInTheCatalogManifestFailsEveryReadOfItButNotOpeningOrOlderSnapshots()
      throws Exception {
    SnapshotFixture newer = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
    newer.store(store);
    String path = where.catalogPath() + "/catalog/snapshots/" + String.format("%019d", newer.id);
    byte[] raw = bed.zk.getData().forPath(path);
    raw[raw.length - 1] ^= 0x01;
    bed.zk.setData().forPath(path, raw);

    assertThatThrownBy(() -> store.manifest(newer.id))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("snapshot " + newer.id + ", manifest: CRC32C mismatch");
    assertThatThrownBy(() -> store.readState(newer.id, "a", chunk -> {}))
        .isInstanceOf(CorruptionException.class);
    assertThat(store.latestComplete().orElseThrow().getSnapshotId())
        .as("a damaged manifest does not hide the older snapshot")
        .isEqualTo(snap.id);
    assertThat(store.list(Set.of()))
        .filteredOn(m -> m.getSnapshotId() == newer.id)
        .singleElement()
        .extracting(SnapshotManifest::getDamage)
        .asString()
        .contains("CRC32C");
    store.close();

    S3SnapshotStore reopened = bed.open(where);
    assertThat(reopened.damaged()).containsKey(newer.id);
    assertThat(reopened.removedOnOpen()).as("the objects of a damaged manifest are kept").isEmpty();
    assertThat(bed.objects(where, newer.id)).isNotEmpty();
    SnapshotStoreContract.assertReadsBack(reopened, snap);
  }

  @Test
  void anUndamagedStoreVerifies() {
    store.verifyIntegrity(snap.id);
    assertThat(store.damaged()).isEmpty();
  }
}
