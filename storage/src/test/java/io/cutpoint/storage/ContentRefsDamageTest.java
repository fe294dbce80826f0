package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table file of {@code content_refs} that cannot be opened is set aside with the reference counts
 * it held. The store counts them again from the committed snapshots' metadata before it collects
 * unreferenced chunk bodies: without that, the collection deleted every chunk of the snapshots in
 * the file, and a later deletion could count a shared chunk down to 0 while a kept snapshot uses
 * it.
 */
class ContentRefsDamageTest {

  @TempDir Path dir;

  @Test
  void aLostFileOfReferencesIsCountedAgainAndNoCommittedChunkIsLost() throws Exception {
    SnapshotFixture first;
    SnapshotFixture second;
    SnapshotFixture third;
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      // States of 16 chunks, 15 shared: the first and the third have chunk 5 of the common
      // state, the second one of its own there, so that chunk's count is 2 (two runs of users).
      first = SnapshotFixture.shared(store.allocateSnapshotId(), 0, 1024);
      first.storeContent(store);
      second = SnapshotFixture.shared(store.allocateSnapshotId(), 5, 1024);
      second.storeContent(store);
      third = SnapshotFixture.shared(store.allocateSnapshotId(), 0, 1024);
      third.storeContent(store);
    }
    try (RawDb raw = new RawDb(dir)) {
      raw.flushAll();
    }
    String file = UnreadableTableFileTest.damageNewest(dir, RocksHandles.CONTENT_REFS, "footer");

    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThat(store.setAsideFiles()).singleElement().asString().contains(file);
      assertThat(store.contentChunksCollectedOnOpen()).isZero();
      for (SnapshotFixture f : List.of(first, second, third)) {
        readsIntact(store, f);
      }
      // the counts are whole again: the first's deletion leaves the third its chunk 5
      assertThat(store.delete(first.id)).isTrue();
      readsIntact(store, second);
      readsIntact(store, third);
    }
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThat(store.contentChunksCollectedOnOpen()).as("nothing left over either").isZero();
      readsIntact(store, second);
      readsIntact(store, third);
    }
  }

  static void readsIntact(RocksSnapshotStore store, SnapshotFixture f) {
    store.verifyIntegrity(f.id);
    for (String w : SnapshotFixture.WORKERS) {
      assertThat(f.readState(store, w))
          .as("snapshot %d, worker %s", f.id, w)
          .isEqualTo(f.states.get(w));
    }
  }
}
