package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
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
    assertThat(report.lines())
        .containsExactly(
            SstDamageTest.SNAPSHOTS
                + " snapshots, "
                + SstDamageTest.SNAPSHOTS
                + " verified, 0 damaged");
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
  void aFileWithADamagedFooterIsSetAsideAtOpenAndCheckNamesIt() throws Exception {
    Path dir = parent.resolve("data");
    SstDamageTest.writeSnapshots(dir, written);
    SstDamageTest.flipBytes(dir, "state_chunks", -20);
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      // The file is out of the database: new snapshots of the family read again.
      SnapshotFixture fresh = new SnapshotFixture(store.allocateSnapshotId(), 1000, 512);
      fresh.store(store);
      store.verifyIntegrity(fresh.id);
      assertThat(store.damaged().keySet()).containsExactlyElementsOf(written.keySet());
    }
    StoreRepair.Report report = StoreRepair.check(dir);
    assertThat(report.damaged()).isTrue();
    assertThat(report.lines())
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("set aside: table file ")
                    .contains("(state_chunks, snapshot ids 1..24)")
                    .contains("Footer"));
    assertThat(report.lines())
        .filteredOn(l -> l.contains(": DAMAGED: table file "))
        .hasSize(SstDamageTest.SNAPSHOTS);
    StoreRepair.Report repaired = StoreRepair.repair(dir, clock);
    assertThat(repaired.lines())
        .anySatisfy(l -> assertThat(l).contains("damaged store is kept in"));
    assertThat(parent.resolve("data.damaged-20260102-030405").resolve("damaged")).isDirectory();
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThat(store.setAsideFiles()).isEmpty();
      assertThat(store.epoch()).isEqualTo(3);
      SnapshotFixture fresh = new SnapshotFixture(store.allocateSnapshotId(), 1000, 512);
      fresh.store(store);
      store.verifyIntegrity(fresh.id);
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

  /** {@code store repair --data-dir .} from inside the store: the copy goes next to it. */
  @Test
  void repairOfADirectoryNamedWithADotPutsItsCopyNextToIt() throws Exception {
    Path dir = parent.resolve("data");
    SstDamageTest.writeSnapshots(dir, written);

    StoreRepair.Report report = StoreRepair.repair(dir.resolve("."), clock);

    assertThat(report.damaged()).isFalse();
    try (var inside = java.nio.file.Files.list(dir)) {
      assertThat(inside.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("repair"));
    }
    try (var beside = java.nio.file.Files.list(parent)) {
      assertThat(beside.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith("data.damaged-"));
    }
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThat(store.list(java.util.Set.of())).hasSize(SstDamageTest.SNAPSHOTS);
    }
  }

  @Test
  void repairCountsAgainTheChunkReferencesOfADamagedBlock() throws Exception {
    Path dir = parent.resolve("data");
    List<SnapshotFixture> three = threeSharingChunks(dir);
    try (RawDb raw = new RawDb(dir)) {
      raw.flushAll();
    }
    SstDamageTest.flipBytes(dir, RocksHandles.CONTENT_REFS, 0.05);

    StoreRepair.Report report = StoreRepair.repair(dir, clock);

    assertThat(report.lines())
        .anySatisfy(l -> assertThat(l).startsWith(RocksHandles.CONTENT_REFS + ": values"));
    assertThat(report.damaged()).isFalse();
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThat(store.contentChunksCollectedOnOpen()).isZero();
      deletingTheFirstKeepsTheOthersWhole(store, three);
    }
  }

  @Test
  void repairRewritesAChunkReferenceThatFailsItsCheck() throws Exception {
    Path dir = parent.resolve("data");
    List<SnapshotFixture> three = threeSharingChunks(dir);
    int refs;
    try (RawDb raw = new RawDb(dir)) {
      List<byte[]> keys = raw.allKeys(RocksHandles.CONTENT_REFS);
      for (byte[] key : keys) {
        raw.flipByte(RocksHandles.CONTENT_REFS, key, 0);
      }
      refs = keys.size();
    }
    assertThat(refs).isGreaterThan(20);
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThatThrownBy(() -> store.delete(three.get(0).id))
          .as("the count the deletion must lower cannot be read")
          .isInstanceOf(CorruptionException.class);
    }
    StoreRepair.Report checked = StoreRepair.check(dir);
    assertThat(checked.damaged()).isTrue();
    assertThat(checked.lines())
        .filteredOn(l -> l.startsWith("content chunk references: content chunk "))
        .hasSize(20);
    assertThat(checked.lines()).contains("content chunk references: " + (refs - 20) + " more");
    assertThat(checked.lines()).last().asString().endsWith(", damaged content chunk references");

    assertThat(StoreRepair.repair(dir, clock).damaged()).isFalse();

    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      deletingTheFirstKeepsTheOthersWhole(store, three);
    }
  }

  /**
   * As in {@link ContentRefsDamageTest}: three states of 16 chunks; chunk 5 of the first and the
   * third is theirs alone, so its count is 2 (two runs of users).
   */
  private static List<SnapshotFixture> threeSharingChunks(Path dir) {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      List<SnapshotFixture> out = new java.util.ArrayList<>();
      for (int changed : new int[] {0, 5, 0}) {
        SnapshotFixture f = SnapshotFixture.shared(store.allocateSnapshotId(), changed, 1024);
        f.storeContent(store);
        out.add(f);
      }
      return out;
    }
  }

  private static void deletingTheFirstKeepsTheOthersWhole(
      RocksSnapshotStore store, List<SnapshotFixture> three) {
    for (SnapshotFixture f : three) {
      ContentRefsDamageTest.readsIntact(store, f);
    }
    assertThat(store.delete(three.get(0).id)).isTrue();
    ContentRefsDamageTest.readsIntact(store, three.get(1));
    ContentRefsDamageTest.readsIntact(store, three.get(2));
  }

  @Test
  void aDirectoryWithoutAStoreIsRefused() {
    assertThatThrownBy(() -> StoreRepair.check(parent.resolve("none")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("no snapshot store in");
  }
}
