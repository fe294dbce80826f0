package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.SnapshotStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A content chunk that a read found missing or bad is no longer offered to new snapshots as held.
 * It was: every later snapshot whose state had the same bytes committed COMPLETE without sending
 * them, and was as unrestorable as the damaged one; and a worker that sent them anyway did not
 * repair it, since a body with a reference was not written again.
 */
class DamagedChunkDedupTest {

  @TempDir Path dir;

  @ParameterizedTest(name = "body {0}")
  @ValueSource(strings = {"lost", "damaged"})
  void aDamagedChunkIsUploadedAgainAndRepairsTheSnapshotsThatShareIt(String how) throws Exception {
    SnapshotFixture first = SnapshotFixture.shared(1, 0, 1024);
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      first.storeContent(store);
    }
    ByteString bad = first.contentMeta("a").getContent(9).getSha256(); // every worker has it
    try (RawDb raw = new RawDb(dir)) {
      if (how.equals("lost")) {
        raw.delete(RocksHandles.CONTENT_CHUNKS, bad.toByteArray());
      } else {
        raw.flipByte(RocksHandles.CONTENT_CHUNKS, bad.toByteArray(), 100);
      }
    }
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThatThrownBy(() -> store.verifyIntegrity(1)).isInstanceOf(CorruptionException.class);
      assertThat(store.damaged()).containsKey(1L);

      SnapshotFixture second = SnapshotFixture.shared(2, 3, 1024); // chunk 9 as in the first
      store.createPending(second.pending());
      SnapshotFixture.WORKERS.forEach(w -> second.writeWorkerContent(store, w));
      second.writeChannels(store);
      store.commit(second.complete());

      assertThat(store.manifest(2).orElseThrow().getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      store.verifyIntegrity(2);
      store.verifyIntegrity(1); // the same bytes, stored again, repaired it
    }
  }
}
