package io.cutpoint.ops.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.ops.Cli;
import io.cutpoint.storage.RawStore;
import io.cutpoint.storage.RocksSnapshotStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.RocksDB;

/** {@code cutpoint store check|repair}: output and exit codes on intact and damaged stores. */
class StoreCommandTest {
  @TempDir Path parent;

  @Test
  void anIntactStoreChecksWithExitZero() throws Exception {
    Path dir = storeWithSnapshots(3);
    Cli.Result r = Cli.run("store", "check", "--data-dir", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("3 snapshots, 3 verified, 0 damaged").contains("OK: no damage");
  }

  @Test
  void aFlippedByteIsFoundByCheckAndRepairKeepsTheRest() throws Exception {
    Path dir = storeWithSnapshots(6);
    flipInTheMiddleOfEachSst(dir, "state_chunks");
    Cli.Result check = Cli.run("store", "check", "--data-dir", dir.toString());
    assertThat(check.code()).isEqualTo(1);
    assertThat(check.out())
        .containsPattern("snapshot \\d+: DAMAGED: ")
        .contains("DAMAGED: as above");

    Cli.Result repair = Cli.run("store", "repair", "--data-dir", dir.toString());
    assertThat(repair.out())
        .contains("state_chunks: values of snapshot")
        .contains("the damaged store is kept in");
    assertThat(repair.code()).isEqualTo(1);
    assertThat(repair.out()).contains("REPAIRED WITH LOSSES");
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir)) {
      int intact = 0;
      for (long id = 1; id <= 6; id++) {
        try {
          store.verifyIntegrity(id);
          intact++;
        } catch (io.cutpoint.storage.CorruptionException e) {
          // one of the damaged ones
        }
      }
      assertThat(intact).isBetween(1, 5);
    }
  }

  @Test
  void badUsageExitsTwo() {
    assertThat(Cli.run("store", "check").code()).isEqualTo(2);
    Cli.Result none =
        Cli.run("store", "repair", "--data-dir", parent.resolve("nothing").toString());
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("holds no snapshot store");
    assertThat(Cli.run("store").code()).isEqualTo(2);
  }

  @Test
  void aStoreInUseIsRefusedWithExitOne() throws Exception {
    Path dir = storeWithSnapshots(1);
    try (RocksSnapshotStore running = RocksSnapshotStore.open(dir)) {
      Cli.Result r = Cli.run("store", "check", "--data-dir", dir.toString());
      assertThat(r.code()).isEqualTo(1);
      assertThat(r.err()).contains("is in use by another process");
    }
  }

  /** Snapshots of one worker, 64 KiB of state in 8 KiB chunks each, flushed to SST files. */
  private Path storeWithSnapshots(int count) throws Exception {
    Path dir = parent.resolve("data");
    Random random = new Random(7);
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir)) {
      for (int i = 0; i < count; i++) {
        long id = store.allocateSnapshotId();
        SnapshotManifest pending =
            SnapshotManifest.newBuilder()
                .setSnapshotId(id)
                .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
                .setTopology(
                    Topology.newBuilder().addWorkers(WorkerDecl.newBuilder().setWorkerId("w")))
                .build();
        store.createPending(pending);
        byte[] state = new byte[64 << 10];
        random.nextBytes(state);
        for (int c = 0; c < 8; c++) {
          byte[] chunk = java.util.Arrays.copyOfRange(state, c << 13, (c + 1) << 13);
          store.putStateChunk(id, "w", c, chunk, Crc32c.of(chunk));
        }
        store.putWorkerMeta(
            id,
            LocalSnapshotMeta.newBuilder()
                .setWorkerId("w")
                .setStateBytes(state.length)
                .setStateCrc32C(Crc32c.of(state))
                .build());
        store.commit(
            pending.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).build());
      }
    }
    withRawDb(
        dir,
        (db, handles) -> {
          try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, handles);
          }
        });
    return dir;
  }

  private static void flipInTheMiddleOfEachSst(Path dir, String family) throws Exception {
    List<Path> files = new ArrayList<>();
    withRawDb(
        dir,
        (db, handles) -> {
          for (LiveFileMetaData f : db.getLiveFilesMetaData()) {
            if (new String(f.columnFamilyName()).equals(family)) {
              files.add(dir.resolve(f.fileName().replaceFirst("^/", "")));
            }
          }
        });
    assertThat(files).isNotEmpty();
    for (Path file : files) {
      byte[] bytes = Files.readAllBytes(file);
      bytes[bytes.length / 2] ^= 0x40;
      Files.write(file, bytes);
    }
  }

  private interface RawAction {
    void apply(RocksDB db, List<ColumnFamilyHandle> handles) throws Exception;
  }

  private static void withRawDb(Path dir, RawAction action) throws Exception {
    try (RawStore raw = RawStore.openWithDefaultTables(dir)) {
      action.apply(raw.db(), raw.handles());
    }
  }
}
