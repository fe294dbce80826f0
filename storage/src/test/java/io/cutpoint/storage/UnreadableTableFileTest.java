package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.SstFileReader;
import org.rocksdb.TableProperties;

/**
 * Damages the part of a table file that RocksDB reads to open it (the footer, the index block, the
 * properties and metaindex blocks) in each column family, in the newer of two files of the family
 * (snapshots 1..12 are in one file, 13..24 in the other). The store must start, set the file aside
 * in {@code damaged/}, mark exactly the snapshots that had pieces in it damaged with a reason
 * naming the file, and serve every other snapshot intact; new snapshots work; a reopen keeps the
 * marks. (RocksDB here builds no filter block: no filter policy is configured.)
 */
class UnreadableTableFileTest {
  static final int HALF = 12;

  @TempDir Path dir;
  private final Map<Long, SnapshotFixture> written = new TreeMap<>();

  @BeforeEach
  void writeTwoFilesPerFamily() throws Exception {
    // one id per reservation, so that the second session's ids follow the first's
    RocksSnapshotStore.Options options =
        new RocksSnapshotStore.Options(false, 1, RocksSnapshotStoreTest.FAST.clock());
    for (int half = 0; half < 2; half++) {
      try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, options)) {
        for (int i = 0; i < HALF; i++) {
          SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 24 << 10, 8 << 10);
          snap.store(store);
          written.put(snap.id, snap);
        }
        if (half == 0) {
          store.beginRollback(3, HALF);
          store.finishRollback(3);
        }
      }
      try (RawDb raw = new RawDb(dir)) {
        raw.flushAll();
      }
    }
    assertThat(written.keySet()).first().isEqualTo(1L);
    assertThat(written.keySet()).last().isEqualTo((long) 2 * HALF);
  }

  @ParameterizedTest(name = "{1} of the newer {0} file")
  @CsvSource({
    "manifests, footer", "manifests, index", "manifests, properties",
    "state_chunks, footer", "state_chunks, index", "state_chunks, properties",
    "channel_states, footer", "channel_states, index", "channel_states, properties",
    "worker_meta, footer", "worker_meta, index", "worker_meta, properties",
  })
  void theStoreStartsAndOnlyTheSnapshotsInTheFileAreDamaged(String family, String part)
      throws Exception {
    String file = damageNewest(dir, family, part);
    assertThat(TableQuarantine.openError(dir.resolve(file))).isNotNull();
    Set<Long> lost = new java.util.TreeSet<>();
    for (long id = HALF + 1; id <= 2 * HALF; id++) {
      lost.add(id);
    }
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      checkEverySnapshot(store, lost, file);
      assertThat(store.setAsideFiles())
          .singleElement()
          .satisfies(
              l ->
                  assertThat(l)
                      .contains("table file " + file + " (" + family + ", snapshot ids 13..24)")
                      .contains("set aside in " + dir.resolve("damaged")));
      assertThat(dir.resolve("damaged").resolve(file)).exists();
      assertThat(dir.resolve(file)).doesNotExist();
      SnapshotFixture fresh = new SnapshotFixture(store.allocateSnapshotId(), 1000, 512);
      fresh.store(store);
      written.put(fresh.id, fresh);
      store.verifyIntegrity(fresh.id);
      assertThat(store.latestComplete()).map(SnapshotManifest::getSnapshotId).contains(fresh.id);
    }
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      // the record in damaged/ names the file on every later open too
      checkEverySnapshot(store, lost, file);
    }
  }

  /** Every snapshot of {@code lost} is damaged, naming the file; every other one reads intact. */
  private void checkEverySnapshot(RocksSnapshotStore store, Set<Long> lost, String file) {
    for (long id : written.keySet()) {
      if (lost.contains(id)) {
        assertThat(store.damaged()).as("snapshot %d", id).containsKey(id);
        assertThat(store.damaged().get(id)).contains("table file " + file);
        continue;
      }
      store.verifyIntegrity(id);
      SnapshotFixture snap = written.get(id);
      for (String w : SnapshotFixture.WORKERS) {
        assertThat(snap.readState(store, w)).isEqualTo(snap.states.get(w));
      }
      for (var c : SnapshotFixture.CHANNELS) {
        assertThat(store.readChannel(id, c))
            .usingRecursiveComparison()
            .isEqualTo(snap.recordings.get(c));
      }
    }
    assertThat(store.damaged().keySet()).containsExactlyElementsOf(lost);
    List<SnapshotManifest> listed = store.list(Set.of());
    assertThat(listed)
        .extracting(SnapshotManifest::getSnapshotId)
        .containsExactlyElementsOf(SstDamageTest.newestFirst(written.keySet()));
    assertThat(
            listed.stream()
                .filter(m -> !m.getDamage().isEmpty())
                .map(SnapshotManifest::getSnapshotId))
        .containsExactlyInAnyOrderElementsOf(lost);
    assertThat(store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)))
        .extracting(SnapshotManifest::getSnapshotId)
        .contains((long) HALF);
  }

  /**
   * Flips a byte of the newest table file of {@code family}: in its footer, at the start of its
   * index block, or in its properties block, just before the metaindex block and the footer.
   *
   * @return the file's name
   */
  static String damageNewest(Path dir, String family, String part) throws Exception {
    LiveFileMetaData newest = null;
    try (RawDb raw = new RawDb(dir)) {
      for (LiveFileMetaData f : raw.liveFiles()) {
        if (new String(f.columnFamilyName(), StandardCharsets.UTF_8).equals(family)
            && (newest == null || f.largestSeqno() > newest.largestSeqno())) {
          newest = f;
        }
      }
    }
    assertThat(newest).as("a table file of %s", family).isNotNull();
    String name = newest.fileName().replaceFirst("^/", "");
    Path file = dir.resolve(name);
    long size = Files.size(file);
    long offset;
    try (Options options = new Options();
        SstFileReader reader = new SstFileReader(options)) {
      reader.open(file.toString());
      TableProperties p = reader.getTableProperties();
      assertThat(p.getFilterSize()).as("no filter block").isZero();
      // The index block starts right after the data blocks (and the filter block, if any); the
      // properties and metaindex blocks end right before the footer (53 bytes).
      long indexStart = p.getDataSize() + p.getFilterSize();
      offset =
          switch (part) {
            case "footer" -> size - 20;
            case "index" -> indexStart + 10;
            case "properties" -> size - 53 - 200;
            default -> throw new IllegalArgumentException(part);
          };
    }
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) offset] ^= 0x40;
    Files.write(file, bytes);
    return name;
  }
}
