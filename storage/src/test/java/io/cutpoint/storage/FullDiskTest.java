package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fills a real (tmpfs) disk under the store while a snapshot is being written: the store reports
 * the I/O error, and once space is back {@link RocksSnapshotStore#resume()} makes it write again
 * without a restart; the interrupted snapshot ends ABORTED, older ones are intact.
 */
class FullDiskTest {
  @TempDir Path dir;

  @Test
  void afterAFullDiskTheStoreWritesAgainOnceSpaceIsBack() throws Exception {
    try (SmallDisk disk = SmallDisk.mount(dir, 8)) {
      Path data = disk.root.resolve("data");
      try (RocksSnapshotStore store =
          RocksSnapshotStore.open(data, RocksSnapshotStore.Options.DEFAULT)) {
        SnapshotFixture before = new SnapshotFixture(store.allocateSnapshotId(), 20_000, 4096);
        before.store(store);
        assertThat(store.unavailable()).isEmpty();

        disk.fill();
        SnapshotFixture during = new SnapshotFixture(store.allocateSnapshotId(), 2 << 20, 64 << 10);
        assertThatThrownBy(() -> during.store(store))
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("No space left");
        assertThat(store.unavailable())
            .hasValueSatisfying(why -> assertThat(why).contains("No space left"));
        assertThatThrownBy(() -> during.store(store))
            .as("still full")
            .isInstanceOf(StoreException.class);

        disk.free();
        assertThat(store.resume()).isTrue();
        assertThat(store.unavailable()).isEmpty();
        // The coordinator aborts what was pending; that write goes through now.
        store.finish(
            during.pending().toBuilder()
                .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
                .setReason("the snapshot store cannot write")
                .build());
        assertThat(store.manifest(during.id))
            .hasValueSatisfying(
                m -> assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED));
        store.verifyIntegrity(before.id);
        SnapshotFixture after = new SnapshotFixture(store.allocateSnapshotId(), 20_000, 4096);
        after.store(store);
        store.verifyIntegrity(after.id);
        assertThat(after.readState(store, "b")).isEqualTo(after.states.get("b"));
      }
    }
  }
}
