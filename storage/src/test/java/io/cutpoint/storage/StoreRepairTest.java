package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cutpoint store check} and {@code repair} on stores with flipped bytes in SST files. */
class StoreRepairTest {
  @TempDir Path parent;
  private final Map<Long, SnapshotFixture> written = new TreeMap<>();
  private final Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);

  @Test
  void anIntactStoreChecksClean() throws Exception {
    Path dir = parent.resolve("data");
    SstDamageTest.writeSnapshots(dir, written);
    StoreRepair.Report report = StoreRepair.check(dir);
    assertThat(report.damaged()).isFalse();
    assertThat(report.lines()).containsExactly(
        SstDamageTest.SNAPSHOTS + " snapshots, " + SstDamageTest.SNAPSHOTS + " verified, 0 damaged");
  }

  @Test
  void checkNamesTheDamagedSnapshots() throws Exception {
    Path dir = parent.resolve("data");
    SstDamageTest.writeSnapshots(dir, written);
    SstDamageTest.flipBytes(dir, "state_chunks", 0.5);
    StoreRepair.Report report = StoreRepair.check(dir);
    assertThat(report.damaged()).isTrue();
    assertThat(report.lines()).anySatisfy(l -> assertThat(l).matches("snapshot \\d+: DAMAGED: .*"));
  }

  @Test
  void aDamagedFooterTakesRepairAfterWhichTheStoreWritesAgain() throws Exception {
    Path dir = parent.resolve("data");
    SstDamageTest.writeSnapshots(dir, written);
    SstDamageTest.flipBytes(dir, "state_chunks", -20);
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      SnapshotFixture fresh = new SnapshotFixture(store.allocateSnapshotId(), 1000, 512);
      fresh.store(store);
      // RocksDB consults the unreadable file for every read of the family, also of new keys.
      assertThatThrownBy(() -> store.verifyIntegrity(fresh.id))
          .isInstanceOf(CorruptionException.class).hasMessageContaining("Footer");
    }
    StoreRepair.Report report = StoreRepair.repair(dir, clock);
    assertThat(report.lines()).anySatisfy(l -> assertThat(l).startsWith("state_chunks: values of"));
    assertThat(report.lines()).anySatisfy(l -> assertThat(l).contains("damaged store is kept in"));
    assertThat(Files.exists(parent.resolve("data.damaged-20260102-030405").resolve("CURRENT")))
        .isTrue();
    assertThat(report.damaged()).isTrue(); // the chunks that were in the file are gone
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      SnapshotFixture fresh = new SnapshotFixture(store.allocateSnapshotId(), 1000, 512);
      fresh.store(store);
      store.verifyIntegrity(fresh.id);
      assertThat(store.allocateSnapshotId()).isGreaterThan(fresh.id);
      assertThat(store.epoch()).isEqualTo(3);
    }
  }

  @Test
  void repairKeepsEverySnapshotOutsideADamagedBlock() throws Exception {
    Path dir = parent.resolve("data");
    SstDamageTest.writeSnapshots(dir, written);
    SstDamageTest.flipBytes(dir, "state_chunks", 0.5);
    StoreRepair.Report report = StoreRepair.repair(dir, clock);
    assertThat(report.damaged()).isTrue();
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      int intact = 0;
      for (SnapshotFixture snap : written.values()) {
        try {
          store.verifyIntegrity(snap.id);
          assertThat(snap.readState(store, "c")).isEqualTo(snap.states.get("c"));
          intact++;
        } catch (CorruptionException e) {
          assertThat(e).hasMessageContaining("snapshot " + snap.id + ", worker");
        }
      }
      assertThat(intact).isBetween(1, SstDamageTest.SNAPSHOTS - 1);
    }
  }

  @Test
  void aDirectoryWithoutAStoreIsRefused() {
    assertThatThrownBy(() -> StoreRepair.check(parent.resolve("none")))
        .isInstanceOf(StoreException.class).hasMessageContaining("no snapshot store in");
  }
}
