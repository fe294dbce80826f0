package io.cutpoint.storage;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link ConcurrencyContract} on the RocksDB store. */
class ConcurrencyTest extends ConcurrencyContract {
  @TempDir Path dir;

  @Override
  SnapshotStore open() {
    return RocksSnapshotStore.open(dir, RocksSnapshotStoreTest.FAST);
  }

  @Override
  SnapshotFixture concurrentUploads(long id) {
    return new SnapshotFixture(id, 200_000, 4096);
  }
}
