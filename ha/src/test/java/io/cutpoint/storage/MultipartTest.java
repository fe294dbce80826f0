package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.ha.S3SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.time.Clock;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A piece larger than the part size goes up as a multipart upload and reads back checked. */
class MultipartTest {
  static final int PART = 5 << 20;

  @Test
  void aLargeChunkGoesUpInPartsAndReadsBackExactlyAndItsDamageIsCaught() throws Exception {
    try (HaTestbed bed = new HaTestbed()) {
      S3SnapshotStore.Location where = bed.fresh();
      S3SnapshotStore store =
          bed.open(
              where, bed.take(where), new S3SnapshotStore.Options(100, PART, Clock.systemUTC()));
      long id = store.allocateSnapshotId();
      byte[] state = new byte[12 << 20];
      new Random(id).nextBytes(state);
      SnapshotManifest pending =
          SnapshotManifest.newBuilder()
              .setSnapshotId(id)
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
              .setEpoch(1)
              .setTopology(
                  Topology.newBuilder().addWorkers(WorkerDecl.newBuilder().setWorkerId("big")))
              .build();
      store.createPending(pending);
      store.putWorkerMeta(
          id,
          LocalSnapshotMeta.newBuilder()
              .setWorkerId("big")
              .setEpoch(1)
              .setStateBytes(state.length)
              .setStateCrc32C(SnapshotFixture.crc(state))
              .build());
      store.putStateChunk(id, "big", 0, state, SnapshotFixture.crc(state));
      store.commit(pending.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).build());

      String key = HaTestbed.key(where, id, "big/state/0000000000");
      String etag = bed.s3.client().headObject(b -> b.bucket(HaTestbed.BUCKET).key(key)).eTag();
      assertThat(etag).as("a multipart object's ETag ends in -<parts>").endsWith("-3\"");
      ByteArrayOutputStream read = new ByteArrayOutputStream();
      store.readState(id, "big", read::writeBytes);
      assertThat(read.toByteArray()).isEqualTo(state);
      store.verifyIntegrity(id);

      byte[] raw = bed.getRaw(key);
      raw[(7 << 20) + 3] ^= 0x01; // in the second part
      bed.putRaw(key, raw);
      assertThatThrownBy(() -> store.readState(id, "big", chunk -> {}))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("worker big, state chunk 0: CRC32C mismatch");
    }
  }
}
