package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SnapshotStoreContract} on the RocksDB store, and what is RocksDB's own. */
class RocksSnapshotStoreTest extends SnapshotStoreContract {
  static final RocksSnapshotStore.Options FAST =
      RocksSnapshotStore.Options.DEFAULT.withSyncWrites(false);

  @TempDir Path dir;
  private final List<RocksSnapshotStore> opened = new ArrayList<>();

  @AfterEach
  void closeStores() {
    opened.forEach(RocksSnapshotStore::close);
  }

  @Override
  RocksSnapshotStore open() {
    RocksSnapshotStore store = RocksSnapshotStore.open(dir, FAST);
    opened.add(store);
    return store;
  }

  /**
   * The database is locked while its store is open; {@link
   * #pendingLeftoversAreAbortedWithTheirPiecesDeletedOnReopen} reads its keys once it is closed.
   */
  @Override
  void assertHeldBelowTheStore(long snapshotId, boolean held) {}

  @Test
  void pendingLeftoversAreAbortedWithTheirPiecesDeletedOnReopen() throws Exception {
    RocksSnapshotStore store = open();
    SnapshotFixture[] s = committedAndPending(store, 3000, 1024);
    SnapshotFixture done = s[0];
    SnapshotFixture left = s[1];
    store.close();
    try (RawDb raw = new RawDb(dir)) {
      assertThat(raw.keys("state_chunks", left.id)).isNotEmpty();
    }

    RocksSnapshotStore reopened = open();
    assertThat(reopened.abortedOnOpen()).containsExactly(left.id);
    SnapshotManifest m = reopened.manifest(left.id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(m.getReason()).isEqualTo("coordinator restarted");
    assertThat(reopened.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_PENDING))).isEmpty();
    assertReadsBack(reopened, done);
    reopened.close();
    try (RawDb raw = new RawDb(dir)) {
      for (String family : List.of("state_chunks", "channel_states", "worker_meta")) {
        assertThat(raw.keys(family, left.id)).as(family).isEmpty();
        assertThat(raw.keys(family, done.id)).as(family).isNotEmpty();
      }
    }
  }

  @Test
  void openingCreatesEveryColumnFamilyAndKeepsUnknownOnes() throws Exception {
    open().close();
    try (RawDb raw = new RawDb(dir)) {
      assertThat(raw.families())
          .contains(
              "default", "manifests", "state_chunks", "channel_states", "worker_meta", "metadata");
    }
  }

  @Test
  void aSecondOpenOfTheSameDirectoryGetsAClearError() {
    open();
    assertThatThrownBy(() -> RocksSnapshotStore.open(dir, FAST))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("data directory " + dir.toAbsolutePath())
        .hasMessageContaining("is in use by another process");
  }

  @Test
  void withOneIdPerSyncedWriteNoIdIsSkippedAndNoneReusedAfterReopen() {
    RocksSnapshotStore store = open();
    long c = store.allocateSnapshotId();
    store.close();
    RocksSnapshotStore.Options single = new RocksSnapshotStore.Options(false, 1, FAST.clock());
    try (RocksSnapshotStore s = RocksSnapshotStore.open(dir, single)) {
      long d = s.allocateSnapshotId();
      assertThat(d).isGreaterThan(c);
      assertThat(s.allocateSnapshotId()).isEqualTo(d + 1);
    }
    try (RocksSnapshotStore s = RocksSnapshotStore.open(dir, single)) {
      assertThat(s.allocateSnapshotId()).isGreaterThan(c + 1);
    }
  }

  @Test
  void aClosedStoreRefusesToSyncAndFreesItsDirectory() {
    RocksSnapshotStore store = open();
    store.close();
    assertThatThrownBy(store::syncPieces)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("is closed: cannot sync the stored pieces");
    RocksSnapshotStore.open(dir, FAST).close();
  }
}
