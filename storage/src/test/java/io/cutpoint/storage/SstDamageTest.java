package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Damages the SST files of one column family of a closed store the way a disk would (one flipped
 * byte, in a data block or in the file's tail where its index and footer are) and checks that the
 * store still opens, that exactly the snapshots whose bytes are damaged fail their reads with
 * {@link CorruptionException}, are listed as damaged, and that every other one reads back intact.
 */
class SstDamageTest {
  static final int SNAPSHOTS = 24;

  @TempDir Path dir;
  private final Map<Long, SnapshotFixture> written = new TreeMap<>();

  @BeforeEach
  void writeSnapshotsAndFlush() throws Exception {
    writeSnapshots(dir, written);
  }

  /** Snapshots of 3 workers with 8 KiB chunks (a block each), flushed to SST files. */
  static void writeSnapshots(Path dir, Map<Long, SnapshotFixture> written) throws Exception {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      for (int i = 0; i < SNAPSHOTS; i++) {
        SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 24 << 10, 8 << 10);
        snap.store(store);
        written.put(snap.id, snap);
      }
      store.beginRollback(3, written.keySet().iterator().next());
      store.finishRollback(3);
    }
    try (RawDb raw = new RawDb(dir)) {
      raw.flushAll();
    }
  }

  /**
   * {@code at}: a fraction of the file (a data block) or bytes from its end (the footer: the whole
   * file is unreadable). {@code partial}: whether some snapshots must survive, i.e. whether the
   * family's file has more than one data block (the metadata of 24 snapshots fits in one).
   */
  @ParameterizedTest(name = "{0}, byte at {1} of each file")
  @CsvSource({
    "manifests, 0.5, true",
    "manifests, -20, false",
    "state_chunks, 0.5, true",
    "state_chunks, 0.05, true",
    "state_chunks, -20, false",
    "channel_states, 0.5, true",
    "channel_states, -20, false",
    "worker_meta, 0.5, false",
    "worker_meta, -20, false",
  })
  void aFlippedByteInAnSstFileDamagesOnlyTheSnapshotsWhoseBytesItHolds(
      String family, double at, boolean partial) throws Exception {
    flipBytes(dir, family, at);
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      Set<Long> damaged = new TreeSet<>();
      for (long id : written.keySet()) {
        try {
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
        } catch (CorruptionException e) {
          assertThat(e).hasMessageContaining("snapshot " + id);
          damaged.add(id);
        }
      }
      assertThat(damaged).as("snapshots damaged by a flip in %s", family).isNotEmpty();
      if (partial) {
        assertThat(damaged)
            .as("a flip in one data block leaves other snapshots intact")
            .hasSizeLessThan(SNAPSHOTS);
      }
      assertThat(store.damaged().keySet()).containsAll(damaged);
      // The list marks every damaged snapshot, and only those.
      List<SnapshotManifest> listed = store.list(Set.of());
      assertThat(listed)
          .extracting(SnapshotManifest::getSnapshotId)
          .containsExactlyElementsOf(newestFirst(written.keySet()));
      assertThat(
              listed.stream()
                  .filter(m -> !m.getDamage().isEmpty())
                  .map(SnapshotManifest::getSnapshotId))
          .containsExactlyInAnyOrderElementsOf(damaged);
      // Past a damaged data block, and past a file set aside (a damaged footer), the store still
      // takes new snapshots.
      SnapshotFixture fresh = new SnapshotFixture(store.allocateSnapshotId(), 1000, 512);
      fresh.store(store);
      store.verifyIntegrity(fresh.id);
    }
  }

  @ParameterizedTest(name = "byte at {0} of the metadata file")
  @CsvSource({"0.5", "-20"})
  void aFlippedByteInTheMetadataFileIsReportedAndTheStoreStartsWithWhatIsLeft(double at)
      throws Exception {
    flipBytes(dir, "metadata", at);
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      assertThat(store.catalogDamage())
          .anySatisfy(d -> assertThat(d).contains("'epoch'"))
          .anySatisfy(d -> assertThat(d).contains("'id_high_water'"));
      assertThat(store.epoch()).isGreaterThan(3);
      assertThat(store.allocateSnapshotId()).isGreaterThan(SNAPSHOTS + 100);
      for (long id : written.keySet()) {
        store.verifyIntegrity(id);
      }
    }
  }

  /** Flips one byte in every SST file of {@code family}: at a fraction of it, or from its end. */
  static void flipBytes(Path dir, String family, double at) throws Exception {
    List<Path> files;
    try (RawDb raw = new RawDb(dir)) {
      files = raw.sstFiles(dir, family);
    }
    assertThat(files).as("SST files of %s", family).isNotEmpty();
    for (Path file : files) {
      flip(file, at);
    }
  }

  static void flip(Path file, double at) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    int offset = at < 0 ? bytes.length + (int) at : (int) (bytes.length * at);
    bytes[offset] ^= 0x40;
    Files.write(file, bytes);
  }

  static List<Long> newestFirst(Set<Long> ids) {
    List<Long> out = new ArrayList<>(ids);
    java.util.Collections.reverse(out);
    return out;
  }

  @org.junit.jupiter.api.Test
  void withoutDamageNothingIsMarked() throws Exception {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST)) {
      for (long id : written.keySet()) {
        store.verifyIntegrity(id);
      }
      assertThat(store.damaged()).isEmpty();
      assertThat(store.catalogDamage()).isEmpty();
      assertThat(store.list(Set.of())).allSatisfy(m -> assertThat(m.getDamage()).isEmpty());
    }
    assertThatThrownBy(() -> flipBytes(dir, "no_such_family", 0.5))
        .isInstanceOf(AssertionError.class);
  }
}
