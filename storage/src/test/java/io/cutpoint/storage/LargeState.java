package io.cutpoint.storage;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * A one-worker snapshot whose state is generated chunk by chunk (never whole in memory): chunk i is
 * random bytes seeded by the snapshot id and i, so a reader can regenerate and compare it.
 */
final class LargeState {
  static final String WORKER = "w";

  private LargeState() {}

  static byte[] chunk(long snapshotId, int index, int size) {
    byte[] data = new byte[size];
    new Random(snapshotId * 1_000_003L + index).nextBytes(data);
    return data;
  }

  /** Writes and commits a snapshot with {@code stateBytes} of state in chunks of chunkSize. */
  static void write(SnapshotStore store, long id, long stateBytes, int chunkSize) {
    SnapshotManifest pending =
        SnapshotManifest.newBuilder()
            .setSnapshotId(id)
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
            .setTopology(
                Topology.newBuilder().addWorkers(WorkerDecl.newBuilder().setWorkerId(WORKER)))
            .build();
    store.createPending(pending);
    CRC32C whole = new CRC32C();
    int index = 0;
    for (long written = 0; written < stateBytes; written += chunkSize, index++) {
      byte[] data = chunk(id, index, (int) Math.min(chunkSize, stateBytes - written));
      whole.update(data);
      store.putStateChunk(id, WORKER, index, data, SnapshotFixture.crc(data));
    }
    store.putWorkerMeta(
        id,
        LocalSnapshotMeta.newBuilder()
            .setSnapshotId(id)
            .setWorkerId(WORKER)
            .setStateBytes(stateBytes)
            .setStateCrc32C((int) whole.getValue())
            .build());
    store.commit(pending.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).build());
  }

  /** Reads the state back chunk by chunk and checks each against what was written. */
  static long readAndCheck(SnapshotStore store, long id, int chunkSize) {
    long[] read = {0};
    int[] index = {0};
    store.readState(
        id,
        WORKER,
        data -> {
          byte[] expected = chunk(id, index[0]++, data.length);
          if (data.length > chunkSize || !Arrays.equals(data, expected)) {
            throw new AssertionError("chunk " + (index[0] - 1) + " differs from what was written");
          }
          read[0] += data.length;
        });
    return read[0];
  }
}
