package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.ha.S3SnapshotStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;

/**
 * A manifest larger than a ZooKeeper node may be: ZooKeeper answers such a request by closing the
 * connection, and the client sends it again, so each try suspended the session (a leader loses its
 * lead on that) and the next leader met the same manifest. It is refused before it is sent.
 */
class LargeManifestTest {

  /** A full mesh of {@code n} workers: n(n-1) channels, each named at both of its ends. */
  private static Topology mesh(int n) {
    Topology.Builder t = Topology.newBuilder();
    for (int i = 0; i < n; i++) {
      WorkerDecl.Builder d = WorkerDecl.newBuilder().setWorkerId(String.format("worker-%04d", i));
      for (int j = 0; j < n; j++) {
        if (j != i) {
          d.addOutgoing(String.format("worker-%04d", j));
          d.addIncoming(String.format("worker-%04d", j));
        }
      }
      t.addWorkers(d);
    }
    return t.build();
  }

  @Test
  void aManifestLargerThanAZooKeeperNodeIsRefusedWithoutLosingTheConnection() throws Exception {
    try (HaTestbed bed = new HaTestbed()) {
      List<ConnectionState> states = new CopyOnWriteArrayList<>();
      bed.zk.getConnectionStateListenable().addListener((client, state) -> states.add(state));
      S3SnapshotStore store = bed.open(bed.fresh());
      SnapshotFixture tooLarge = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      SnapshotManifest pending = tooLarge.pending().toBuilder().setTopology(mesh(240)).build();
      assertThat(pending.getSerializedSize()).isGreaterThan(1 << 20);

      assertThatThrownBy(() -> store.createPending(pending))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("more than a ZooKeeper node may hold")
          .hasMessageContaining("snapshot " + tooLarge.id);

      SnapshotFixture next = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
      store.createPending(next.pending());
      next.writePieces(store);
      store.commit(next.complete());
      assertThat(store.manifest(next.id).orElseThrow().getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
      assertThat(states)
          .as("the session was never suspended")
          .doesNotContain(ConnectionState.SUSPENDED, ConnectionState.LOST);
    }
  }
}
