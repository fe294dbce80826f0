package io.cutpoint.server.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.storage.RawStore;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.SstFileReader;

/**
 * A byte flipped on disk in the SST file that holds the newest snapshot's state (in a data block,
 * or in the footer or index block, which make the whole file unreadable: the store sets it aside):
 * the coordinator still starts, lists that snapshot as damaged, refuses to restore it with
 * DATA_LOSS, and an automatic rollback falls back to the older snapshot, which restores.
 */
class DamagedSstRollbackTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "a data block of content chunks, 20, block checksum mismatch, content_chunks",
    "a data block of numbered chunks, 20, block checksum mismatch, state_chunks",
    "the footer, -20, table file, state_chunks",
    "the index block, index, table file, state_chunks",
  })
  void theCoordinatorStartsOnADamagedFileAndAnAutomaticRollbackFallsBackPastIt(
      String where, String at, String reason, String family) throws Exception {
    CoordinatorConfig.Builder config =
        CoordinatorConfig.builder().rollbackPolicy(RollbackPolicy.LATEST_COMPLETE);
    // content chunks are keyed by hash: every table file of theirs overlaps the others, so one
    // whose footer or index is damaged cannot be set aside (storage.md, section 10)
    boolean content = family.equals("content_chunks");
    try (RollbackCluster c =
        new RollbackCluster(dir, config, "a", "b", "c").contentChunks(content).start()) {
      long older = c.snapshot().getSnapshotId();
      c.stopCoordinator();
      flushAll(dir); // the older snapshot's pieces in their own files
      c.startCoordinator();
      // The admin channel may still be backing off from the stopped server: UNAVAILABLE until
      // it reconnects.
      await()
          .atMost(WAIT)
          .ignoreExceptionsInstanceOf(StatusRuntimeException.class)
          .until(
              () ->
                  c.admin.getCluster(GetClusterRequest.getDefaultInstance()).getWorkersCount()
                      == 3);
      // a transfer changes two states: the newest snapshot has content chunks of its own
      RollbackCluster.Member a = c.member("a");
      long before = a.teller().balance();
      a.worker().execute(a.teller()::transfer);
      await().atMost(WAIT).until(() -> a.teller().balance() != before);
      long newest = c.snapshot().getSnapshotId();
      c.stopCoordinator();
      flushAll(dir);
      flipInTheNewestFile(dir, family, at);

      c.startCoordinator();
      await()
          .atMost(WAIT)
          .ignoreExceptionsInstanceOf(StatusRuntimeException.class)
          .untilAsserted(
              () ->
                  assertThat(
                          c.admin
                              .listSnapshots(ListSnapshotsRequest.getDefaultInstance())
                              .getSnapshotsList())
                      .filteredOn(m -> m.getSnapshotId() == newest)
                      .singleElement()
                      .extracting(SnapshotManifest::getDamage)
                      .asString()
                      .contains(reason));
      assertThat(
              c.admin.listSnapshots(ListSnapshotsRequest.getDefaultInstance()).getSnapshotsList())
          .filteredOn(m -> m.getSnapshotId() == older)
          .singleElement()
          .extracting(SnapshotManifest::getDamage)
          .asString()
          .isEmpty();
      assertThatThrownBy(
              () ->
                  c.admin.rollback(
                      RollbackRequest.newBuilder().setSnapshotId(newest).setWait(true).build()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DATA_LOSS));

      await()
          .atMost(WAIT)
          .until(
              () ->
                  c.admin.getCluster(GetClusterRequest.getDefaultInstance()).getWorkersCount()
                      == 3);
      c.crashWorker("c");
      await().atMost(WAIT).until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).isEmpty());
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED).get(0).getSnapshotId())
          .isEqualTo(older);
      assertThat(c.events(EventType.EVENT_TYPE_ROLLBACK_FALLBACK))
          .singleElement()
          .satisfies(e -> assertThat(e.getSnapshotId()).isEqualTo(newest));
      c.startWorker("c");
      await()
          .atMost(WAIT)
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
      for (String w : List.of("a", "b")) {
        assertThat(c.member(w).control().restores)
            .last()
            .satisfies(r -> assertThat(r.snapshotId()).isEqualTo(older));
      }
    }
  }

  private static void flushAll(Path dir) throws Exception {
    withRawDb(
        dir,
        (db, handles) -> {
          try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, handles);
          }
        });
  }

  /** {@code at}: an offset, an offset from the end if negative, or "index" (its first bytes). */
  private static void flipInTheNewestFile(Path dir, String family, String at) throws Exception {
    List<LiveFileMetaData> files = new ArrayList<>();
    withRawDb(
        dir,
        (db, handles) -> {
          for (LiveFileMetaData f : db.getLiveFilesMetaData()) {
            if (new String(f.columnFamilyName(), StandardCharsets.UTF_8).equals(family)) {
              files.add(f);
            }
          }
        });
    assertThat(files).hasSizeGreaterThanOrEqualTo(2);
    LiveFileMetaData newest =
        files.stream().max(Comparator.comparingLong(LiveFileMetaData::largestSeqno)).orElseThrow();
    Path file = dir.resolve(newest.fileName().replaceFirst("^/", ""));
    byte[] bytes = Files.readAllBytes(file);
    int offset;
    if (at.equals("index")) {
      try (Options options = new Options();
          SstFileReader reader = new SstFileReader(options)) {
        reader.open(file.toString());
        // the index block follows the data blocks and the filter block (with its 5-byte trailer)
        long filter = reader.getTableProperties().getFilterSize();
        offset =
            (int) (reader.getTableProperties().getDataSize() + (filter > 0 ? filter + 5 : 0) + 10);
      }
    } else {
      int n = Integer.parseInt(at); // 20: inside the first data block, which starts the file
      offset = n < 0 ? bytes.length + n : n;
    }
    bytes[offset] ^= 0x40;
    Files.write(file, bytes);
  }

  private interface RawAction {
    void apply(RocksDB db, List<ColumnFamilyHandle> handles) throws Exception;
  }

  private static void withRawDb(Path dir, RawAction action) throws Exception {
    try (RawStore raw = RawStore.open(dir)) {
      action.apply(raw.db(), raw.handles());
    }
  }
}
