package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Damages a stored snapshot through the RocksDB API (as a disk would) and checks that every read
 * path reports it as {@link CorruptionException} naming the piece, and never returns the data.
 */
class CorruptionTest {
  private static final ChannelId B_TO_C = ChannelId.of("b", "c");

  @TempDir Path dir;
  private SnapshotFixture snap;
  private String where;

  @BeforeEach
  void storeOneSnapshot() {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
      snap.store(store);
      store.verifyIntegrity(snap.id);
    }
    where = "snapshot " + snap.id + ", ";
  }

  /** Offsets into the stored value: the format byte, the CRC, the first and last payload byte. */
  @ParameterizedTest
  @ValueSource(ints = {0, 2, 5, -1})
  void aFlippedByteInAStateChunkFailsReadStateAndVerify(int offset) throws Exception {
    damage(
        raw -> {
          byte[] key = raw.keys("state_chunks", snap.id).get(bChunk(1));
          raw.flipByte("state_chunks", key, offset < 0 ? 1029 - 1 : offset);
        });
    try (RocksSnapshotStore store = reopen()) {
      List<byte[]> passedOn = new ArrayList<>();
      assertThatThrownBy(() -> store.readState(snap.id, "b", passedOn::add))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(where + "worker b, state chunk 1: ");
      assertThat(passedOn).hasSize(1); // chunk 0 only: the bad chunk never reaches the sink
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(where + "worker b, state chunk 1: ");
      // Other workers stay readable.
      assertThat(snap.readState(store, "a")).isEqualTo(snap.states.get("a"));
    }
  }

  @Test
  void aFlippedByteInAChannelBatchFailsReadChannelAndVerify() throws Exception {
    damage(raw -> raw.flipByte("channel_states", batchKeys(raw).get(1), 12));
    try (RocksSnapshotStore store = reopen()) {
      long second = snap.recordings.get(B_TO_C).get(2).seq();
      String piece = where + "channel b->c, batch from #" + second + ": CRC32C mismatch";
      assertThatThrownBy(() -> store.readChannel(snap.id, B_TO_C))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
      assertThatThrownBy(() -> store.readChannels(snap.id, List.of(ChannelId.of("a", "b"), B_TO_C)))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
      assertThat(store.readChannel(snap.id, ChannelId.of("a", "b")))
          .isEqualTo(snap.recordings.get(ChannelId.of("a", "b")));
    }
  }

  @Test
  void aFlippedByteInWorkerMetadataFailsWorkerMetaReadStateAndVerify() throws Exception {
    damage(raw -> raw.flipByte("worker_meta", raw.keys("worker_meta", snap.id).get(2), 8));
    try (RocksSnapshotStore store = reopen()) {
      String piece = where + "worker c, metadata: CRC32C mismatch";
      assertThatThrownBy(() -> store.workerMeta(snap.id, "c"))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
      assertThatThrownBy(() -> store.readState(snap.id, "c", chunk -> {}))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
    }
  }

  @Test
  void aFlippedByteInTheManifestFailsEveryReadOfItButNotOpening() throws Exception {
    damage(raw -> raw.flipByte("manifests", raw.keys("manifests", snap.id).get(0), 20));
    try (RocksSnapshotStore store = reopen()) {
      String piece = where + "manifest: CRC32C mismatch";
      assertThatThrownBy(() -> store.manifest(snap.id))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
      // Listed as damaged: its id and what is wrong, nothing read from the bad value.
      assertThat(store.list(Set.of()))
          .singleElement()
          .satisfies(
              m -> {
                assertThat(m.getSnapshotId()).isEqualTo(snap.id);
                assertThat(m.getDamage()).contains(piece);
                assertThat(m.getTopology().getWorkersCount()).isZero();
              });
      assertThat(store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))).isEmpty();
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
      assertThatThrownBy(() -> store.readState(snap.id, "a", chunk -> {}))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(piece);
      // Finding the newest restorable snapshot and retention skip it (and leave it alone).
      assertThat(store.latestComplete()).isEmpty();
      assertThat(store.applyRetention(1)).isEmpty();
      assertThatThrownBy(() -> store.manifest(snap.id)).isInstanceOf(CorruptionException.class);
    }
  }

  @Test
  void aValueCopiedUnderAnotherKeyFailsItsCheck() throws Exception {
    damage(
        raw -> {
          List<byte[]> keys = raw.keys("state_chunks", snap.id);
          raw.copyValue("state_chunks", keys.get(bChunk(0)), keys.get(bChunk(1)));
        });
    try (RocksSnapshotStore store = reopen()) {
      assertThatThrownBy(() -> store.readState(snap.id, "b", chunk -> {}))
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(where + "worker b, state chunk 1: CRC32C mismatch");
    }
  }

  @Test
  void aMissingMiddleChunkFailsBeforeTheChunkAfterIt() throws Exception {
    damage(raw -> raw.delete("state_chunks", raw.keys("state_chunks", snap.id).get(bChunk(1))));
    try (RocksSnapshotStore store = reopen()) {
      List<byte[]> passedOn = new ArrayList<>();
      assertThatThrownBy(() -> store.readState(snap.id, "b", passedOn::add))
          .isInstanceOf(CorruptionException.class)
          .hasMessage(where + "worker b, state chunk 1: missing");
      assertThat(passedOn).hasSize(1);
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
          .isInstanceOf(CorruptionException.class);
    }
  }

  @Test
  void aMissingLastChunkIsReported() throws Exception {
    int chunks = (snap.states.get("b").length + 1023) / 1024;
    damage(
        raw ->
            raw.delete("state_chunks", raw.keys("state_chunks", snap.id).get(bChunk(chunks - 1))));
    try (RocksSnapshotStore store = reopen()) {
      assertThatThrownBy(() -> store.readState(snap.id, "b", chunk -> {}))
          .isInstanceOf(CorruptionException.class)
          .hasMessage(
              where
                  + "worker b, state chunk "
                  + (chunks - 1)
                  + ": missing ("
                  + chunks
                  + " chunks committed)");
    }
  }

  @Test
  void aMissingChannelBatchIsReported() throws Exception {
    damage(raw -> raw.delete("channel_states", batchKeys(raw).get(0)));
    try (RocksSnapshotStore store = reopen()) {
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
          .isInstanceOf(CorruptionException.class)
          .hasMessage(
              where + "worker c, incoming channels: 2 recorded messages stored, 4" + " committed");
    }
  }

  @Test
  void aCorruptEpochIsRebuiltAboveEveryEpochKnownAndReported() throws Exception {
    try (RocksSnapshotStore store = reopen()) {
      store.beginRollback(2, snap.id);
    }
    damage(raw -> raw.flipByte("metadata", "epoch".getBytes(), 7));
    try (RocksSnapshotStore store = reopen()) {
      assertThat(store.epoch()).isEqualTo(2 + ClusterMetadata.EPOCHS_SKIPPED_AFTER_DAMAGE);
      assertThat(store.catalogDamage())
          .singleElement()
          .asString()
          .startsWith("store metadata 'epoch' cannot be read: the epoch is now 1002");
      assertThat(store.rollbackInProgress()).contains(new SnapshotStore.RollbackIntent(2, snap.id));
      store.verifyIntegrity(snap.id);
    }
    // The rebuilt epoch was written back: the next open finds no damage.
    try (RocksSnapshotStore store = reopen()) {
      assertThat(store.epoch()).isEqualTo(1002);
      assertThat(store.catalogDamage()).isEmpty();
    }
  }

  @Test
  void aCorruptRollbackIntentIsKeptAsARollbackWhoseTargetIsNotKnown() throws Exception {
    try (RocksSnapshotStore store = reopen()) {
      store.beginRollback(2, snap.id);
    }
    damage(raw -> raw.flipByte("metadata", "rollback_intent".getBytes(), 7));
    SnapshotStore.RollbackIntent unknown =
        new SnapshotStore.RollbackIntent(2, SnapshotStore.RollbackIntent.UNKNOWN_TARGET);
    try (RocksSnapshotStore store = reopen()) {
      assertThat(store.rollbackInProgress()).contains(unknown);
      assertThat(store.catalogDamage())
          .singleElement()
          .asString()
          .startsWith("store metadata 'rollback_intent' cannot be read: a rollback may have been");
    }
    // written back: the next open finds it, until a rollback finishes
    try (RocksSnapshotStore store = reopen()) {
      assertThat(store.rollbackInProgress()).contains(unknown);
      assertThat(store.catalogDamage()).isEmpty();
      store.beginRollback(3, snap.id);
      store.finishRollback(3);
      assertThat(store.rollbackInProgress()).isEmpty();
    }
  }

  @Test
  void aCorruptIdHighWaterMarkSkipsIdsRatherThanReuseThem() throws Exception {
    long next;
    try (RocksSnapshotStore store = reopen()) {
      next = store.allocateSnapshotId();
    }
    damage(raw -> raw.flipByte("metadata", "id_high_water".getBytes(), 7));
    try (RocksSnapshotStore store = reopen()) {
      assertThat(store.allocateSnapshotId())
          .isGreaterThan(next + ClusterMetadata.IDS_SKIPPED_AFTER_DAMAGE - 100);
      assertThat(store.catalogDamage())
          .singleElement()
          .asString()
          .startsWith("store metadata 'id_high_water' cannot be read");
    }
  }

  @Test
  void verifyReadsThePiecesInParallelButReportsTheFirstDamagedOneInManifestOrder()
      throws Exception {
    damage(
        raw -> {
          List<byte[]> keys = raw.keys("state_chunks", snap.id);
          raw.flipByte("state_chunks", keys.get(keys.size() - 1), 12); // worker c's last chunk
          raw.flipByte("state_chunks", keys.get(bChunk(1)), 12);
        });
    try (RocksSnapshotStore store = reopen()) {
      for (int i = 0; i < 5; i++) {
        assertThatThrownBy(() -> store.verifyIntegrity(snap.id))
            .isInstanceOf(CorruptionException.class)
            .hasMessageStartingWith(where + "worker b, state chunk 1: CRC32C mismatch");
      }
      assertThatThrownBy(() -> store.readState(snap.id, "c", chunk -> {}))
          .as("c's piece is damaged too")
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(where + "worker c, state chunk");
    }
  }

  @Test
  void aStateItsWorkerHoldsIsNotReadButItsMetadataAndChannelsAreChecked() throws Exception {
    Map<String, HeldState> held = new java.util.HashMap<>();
    try (RocksSnapshotStore store = reopen()) {
      for (String w : List.of("a", "b", "c")) {
        io.cutpoint.api.v1.LocalSnapshotMeta m = store.workerMeta(snap.id, w).orElseThrow();
        held.put(w, new HeldState(m.getStateBytes(), m.getStateCrc32C()));
      }
    }
    damage(
        raw -> raw.flipByte("state_chunks", raw.keys("state_chunks", snap.id).get(bChunk(1)), 12));
    try (RocksSnapshotStore store = reopen()) {
      assertThatCode(() -> store.verifyIntegrity(snap.id, held)).doesNotThrowAnyException();
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id, Map.of("a", held.get("a"))))
          .as("b's damaged state is read when b does not hold it")
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(where + "worker b, state chunk 1: ");
    }
    damage(raw -> raw.flipByte("channel_states", batchKeys(raw).get(1), 12)); // b->c
    try (RocksSnapshotStore store = reopen()) {
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id, held))
          .as("every state is held, but c's incoming channel is damaged")
          .isInstanceOf(CorruptionException.class)
          .hasMessageStartingWith(where + "channel b->c");
    }
    damage(raw -> raw.flipByte("worker_meta", raw.keys("worker_meta", snap.id).get(2), 8));
    try (RocksSnapshotStore store = reopen()) {
      assertThatThrownBy(() -> store.verifyIntegrity(snap.id, held))
          .as("a held state does not excuse damaged metadata")
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("metadata");
    }
  }

  @Test
  void anUndamagedStoreVerifies() {
    try (RocksSnapshotStore store = reopen()) {
      assertThatCode(() -> store.verifyIntegrity(snap.id)).doesNotThrowAnyException();
    }
  }

  private int bChunk(int index) {
    int aChunks = (snap.states.get("a").length + 1023) / 1024;
    return aChunks + index;
  }

  private List<byte[]> batchKeys(RawDb raw) throws Exception {
    // Keys order by receiver: a's incoming (c->a), b's (a->b), c's (b->c).
    List<byte[]> keys = raw.keys("channel_states", snap.id);
    return keys.subList(keys.size() - 2, keys.size());
  }

  private RocksSnapshotStore reopen() {
    return RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST);
  }

  private interface Damage {
    void apply(RawDb raw) throws Exception;
  }

  private void damage(Damage damage) throws Exception {
    try (RawDb raw = new RawDb(dir)) {
      damage.apply(raw);
    }
  }
}
