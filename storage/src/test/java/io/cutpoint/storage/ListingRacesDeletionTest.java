package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a manifest known lost, a listing walks the ids, then reads each manifest: a snapshot that
 * retention or an operator deletes in between is gone, not damaged.
 */
class ListingRacesDeletionTest {
  @TempDir Path dir;

  @Test
  void aSnapshotDeletedWhileAListingWalksIsNotTakenForALostManifest() throws Exception {
    long lost;
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      snap.store(store);
      lost = snap.id;
    }
    try (RawDb raw = new RawDb(dir)) {
      raw.flipByte("manifests", raw.keys("manifests", lost).get(0), 20);
    }
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThat(store.damaged()).containsOnlyKeys(lost);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread lister =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    store.list(Set.of());
                  }
                } catch (Throwable t) {
                  failure.set(t);
                }
              },
              "lister");
      lister.start();
      List<Long> deleted = new ArrayList<>();
      try {
        for (int i = 0; i < 200 && store.damaged().size() == 1; i++) {
          SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
          snap.store(store);
          assertThat(store.delete(snap.id)).isTrue();
          deleted.add(snap.id);
        }
      } finally {
        stop.set(true);
        lister.join();
      }
      assertThat(failure.get()).isNull();
      assertThat(store.damaged()).as("deleted snapshots taken for damage").containsOnlyKeys(lost);
      for (long id : deleted) {
        assertThat(store.manifest(id)).as("snapshot %d", id).isEmpty();
      }
    }
  }
}
