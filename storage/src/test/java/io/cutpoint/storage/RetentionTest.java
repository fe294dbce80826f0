package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.PerfLevel;
import org.rocksdb.RocksIterator;

class RetentionTest {
  @TempDir Path dir;

  @Test
  void keepsTheNewestCompletePlusPinnedAndABoundedHistoryOfFailures() {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      List<Long> complete = new ArrayList<>();
      List<Long> aborted = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 2000, 512);
        snap.store(store);
        complete.add(snap.id);
        SnapshotFixture bad = new SnapshotFixture(store.allocateSnapshotId(), 10, 8);
        bad.abort(store, "timeout " + i);
        aborted.add(bad.id);
      }
      store.setPinned(complete.get(1), true);
      SnapshotFixture inFlight = new SnapshotFixture(store.allocateSnapshotId(), 10, 8);
      store.createPending(inFlight.pending());

      List<Long> deleted = store.applyRetention(2);

      List<Long> kept = store.list(Set.of()).stream().map(SnapshotManifest::getSnapshotId).toList();
      assertThat(kept)
          .containsExactly(
              inFlight.id,
              aborted.get(5),
              complete.get(5),
              aborted.get(4),
              complete.get(4),
              complete.get(1));
      assertThat(deleted)
          .containsExactlyInAnyOrder(
              complete.get(0),
              complete.get(2),
              complete.get(3),
              aborted.get(0),
              aborted.get(1),
              aborted.get(2),
              aborted.get(3));
      assertThatThrownBy(() -> store.readState(complete.get(0), "a", chunk -> {}))
          .isInstanceOf(NoSuchSnapshotException.class);
      store.verifyIntegrity(complete.get(1));
      store.verifyIntegrity(complete.get(5));
      assertThat(store.applyRetention(2)).isEmpty();
    }
  }

  @Test
  void deletingA64MiBStateReclaimsItsSpace() {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      long big = store.allocateSnapshotId();
      LargeState.write(store, big, 64 << 20, 1 << 20);
      long small = store.allocateSnapshotId();
      new SnapshotFixture(small, 1000, 256).store(store);
      long withBig = store.sizeBytes();
      assertThat(withBig).isGreaterThan(64L << 20);

      assertThat(store.applyRetention(1)).containsExactly(big);

      long after = store.sizeBytes();
      assertThat(after).isLessThan(1L << 20);
      System.out.printf(
          "size with a 64 MiB state: %d bytes, after retention: %d bytes%n", withBig, after);
    }
  }

  @Test
  void retentionDropsTheTombstonesOfWhatItDeleted() throws Exception {
    int snapshots = 5 * TombstonePurge.EVERY;
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      for (int i = 0; i < snapshots; i++) {
        new SnapshotFixture(store.allocateSnapshotId(), 64, 32).store(store);
        store.applyRetention(2);
      }
      assertThat(store.list(Set.of())).hasSize(2);
    }
    // What a scan of the manifests steps over: every deleted manifest whose tombstone is still
    // there (RocksDB counts them per thread). Without the compactions, all but the 2 kept.
    try (RocksHandles rocks = RocksHandles.open(dir, false);
        RocksIterator it = rocks.db.newIterator(rocks.manifests)) {
      rocks.db.setPerfLevel(PerfLevel.ENABLE_COUNT);
      rocks.db.getPerfContext().reset();
      int live = 0;
      for (it.seekToLast(); it.isValid(); it.prev()) {
        live++;
      }
      long skipped = rocks.db.getPerfContext().getInternalDeleteSkippedCount();
      rocks.db.setPerfLevel(PerfLevel.DISABLE);
      assertThat(live).isEqualTo(2);
      assertThat(skipped)
          .as("tombstones stepped over by a scan after %d retained deletions", snapshots - 2)
          .isLessThan(TombstonePurge.EVERY);
    }
  }
}
