package io.cutpoint.ops.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read-back of stored snapshots catches an inconsistent cut, lost money and a wrong restore.
 */
class StoredCutsTest {

  @TempDir Path dir;

  @Test
  void aConsistentConservingSnapshotPassesAndEachFaultIsCaught() {
    try (SnapshotStore store = RocksSnapshotStore.open(dir)) {
      // a: balance 50, sent 2 to b, received 1 from b; b: balance 40, received 1 from a, the
      // second message from a (10) in transit. Total 100.
      write(store, 1, 50, 40, 2, 10);
      write(store, 2, 50, 40, 3, 10); // a says it sent 3: message 3 is missing from the recording
      write(store, 3, 50, 41, 2, 10); // one unit too many
      write(store, 4, 50, 40, 2, 10, "a"); // b recorded on a's marker, yet a -> b holds a message
    }
    CrashLedger ledger = new CrashLedger();
    ledger.accept("a", "CP RESTORED w=a s=1 e=2 bal=50 crc=1 inflight=0"); // not the stored state

    StoredCuts.Result r = StoredCuts.check(dir, 100, ledger);

    assertThat(r.complete()).isEqualTo(4);
    assertThat(r.violations())
        .hasSize(4)
        .anySatisfy(
            v ->
                assertThat(v)
                    .isEqualTo(
                        "snapshot 4 (COMPLETE) is inconsistent: a->b: "
                            + "the channel whose marker started the recording holds 1 messages; it must be empty"))
        .anySatisfy(v -> assertThat(v).startsWith("snapshot 2 (COMPLETE) is inconsistent"))
        .anySatisfy(v -> assertThat(v).isEqualTo("snapshot 3 (COMPLETE) holds 101, not 100"))
        .anySatisfy(
            v ->
                assertThat(v)
                    .contains("a restored snapshot 1 in epoch 2 with a state that differs"));
  }

  private static void write(
      SnapshotStore store, long id, long balanceA, long balanceB, long sentAtoB, long inTransit) {
    write(store, id, balanceA, balanceB, sentAtoB, inTransit, "");
  }

  /**
   * As above; b's stored piece names {@code firstMarkerOfB} as the channel whose marker made it
   * record.
   */
  private static void write(
      SnapshotStore store,
      long id,
      long balanceA,
      long balanceB,
      long sentAtoB,
      long inTransit,
      String firstMarkerOfB) {
    Topology topology =
        Topology.newBuilder()
            .addWorkers(
                WorkerDecl.newBuilder()
                    .setWorkerId("a")
                    .setChannelAddress("h:1")
                    .addOutgoing("b")
                    .addIncoming("b"))
            .addWorkers(
                WorkerDecl.newBuilder()
                    .setWorkerId("b")
                    .setChannelAddress("h:2")
                    .addOutgoing("a")
                    .addIncoming("a"))
            .build();
    SnapshotManifest pending =
        SnapshotManifest.newBuilder()
            .setSnapshotId(id)
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
            .setEpoch(1)
            .setTopology(topology)
            .addInitiators("a")
            .build();
    store.createPending(pending);
    piece(store, id, "a", balanceA, "b", sentAtoB, 1, "");
    piece(store, id, "b", balanceB, "a", 1, 1, firstMarkerOfB);
    store.putChannelRecording(
        id,
        ChannelId.of("a", "b"),
        List.of(new InTransitMessage(2, CrashAccount.encode(inTransit))));
    store.commit(
        pending.toBuilder()
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
            .setInFlightMessages(1)
            .build());
  }

  private static void piece(
      SnapshotStore store,
      long id,
      String w,
      long balance,
      String peer,
      long sent,
      long received,
      String firstMarkerFrom) {
    byte[] state = java.nio.ByteBuffer.allocate(8).putLong(balance).array();
    CRC32C crc = new CRC32C();
    crc.update(state);
    store.putStateChunk(id, w, 0, state, (int) crc.getValue());
    store.putWorkerMeta(
        id,
        LocalSnapshotMeta.newBuilder()
            .setSnapshotId(id)
            .setWorkerId(w)
            .setEpoch(1)
            .addSent(ChannelCounter.newBuilder().setPeer(peer).setCount(sent))
            .addReceived(ChannelCounter.newBuilder().setPeer(peer).setCount(received))
            .setStateBytes(state.length)
            .setStateCrc32C((int) crc.getValue())
            .setFirstMarkerFrom(firstMarkerFrom)
            .build());
  }
}
