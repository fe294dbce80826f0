package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ha.S3SnapshotStore;
import org.junit.jupiter.api.Test;

/**
 * ZooKeeper or S3 out of reach: calls fail with a {@link StoreException} that names the store, the
 * operation and the system, a snapshot whose commit failed stays PENDING, and the store works again
 * once the server is back.
 */
class OutageTest {
  @Test
  void aZooKeeperOutageFailsCatalogCallsClearlyAndTheCommitGoesThroughAfterwards()
      throws Exception {
    try (HaTestbed bed = new HaTestbed()) {
      S3SnapshotStore.Location where = bed.fresh();
      S3SnapshotStore store = bed.open(where);
      SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      store.createPending(snap.pending());
      snap.writePieces(store);

      bed.zkServer.stop();
      assertThatThrownBy(() -> store.commit(snap.complete()))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("snapshot store s3://" + HaTestbed.BUCKET + "/" + where.prefix())
          .hasMessageContaining("ZooKeeper: cannot");
      bed.zkServer.restart();

      assertThat(store.manifest(snap.id).orElseThrow().getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
      store.commit(snap.complete());
      SnapshotStoreContract.assertReadsBack(store, snap);
    }
  }

  @Test
  void anS3OutageFailsPieceWritesAndReadsClearly() throws Exception {
    HaTestbed bed = new HaTestbed();
    try {
      S3SnapshotStore.Location where = bed.fresh();
      S3SnapshotStore store = bed.open(where);
      SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      snap.store(store);
      SnapshotFixture next = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      store.createPending(next.pending());

      bed.s3.stopServer();
      assertThatThrownBy(() -> next.writeWorker(store, "a"))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("S3: cannot store metadata of snapshot " + next.id);
      assertThatThrownBy(() -> store.readState(snap.id, "a", chunk -> {}))
          .isInstanceOf(StoreException.class)
          .isNotInstanceOf(CorruptionException.class)
          .hasMessageContaining("S3: cannot");
      assertThat(store.damaged()).as("an outage is not damage").isEmpty();
    } finally {
      bed.close();
    }
  }
}
