package io.cutpoint.storage;

import io.cutpoint.ha.S3SnapshotStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link ConcurrencyContract} on {@link S3SnapshotStore}, each case on a fresh location; its
 * concurrent uploads write larger chunks, since every chunk is a request.
 */
class S3ConcurrencyTest extends ConcurrencyContract {
  private static HaTestbed bed;

  @BeforeAll
  static void start() throws Exception {
    bed = new HaTestbed();
  }

  @AfterAll
  static void stop() throws Exception {
    bed.close();
  }

  @Override
  SnapshotStore open() {
    return bed.open(bed.fresh());
  }

  @Override
  SnapshotFixture concurrentUploads(long id) {
    return new SnapshotFixture(id, 100_000, 16_384);
  }
}
