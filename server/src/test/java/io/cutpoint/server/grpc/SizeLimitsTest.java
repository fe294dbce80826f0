package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawPair.statusOf;
import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.ChannelRecording;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Uploads that are too big: a state chunk over 1 MiB, recorded messages over the per-snapshot
 * limit.
 */
class SizeLimitsTest {

  private static final long RECORDED_LIMIT = 10;

  @TempDir Path dir;
  private RawPair pair;
  private InProcessCoordinator coordinator;
  private long id;

  @BeforeEach
  void setUp() throws Exception {
    pair =
        new RawPair(
            InProcessCoordinator.config(dir).maxRecordedBytesPerSnapshot(RECORDED_LIMIT).build());
    coordinator = pair.coordinator;
    id = pair.snapshotId;
  }

  @AfterEach
  void tearDown() throws Exception {
    pair.close();
  }

  /**
   * b's piece: nothing sent, one received from a, and a->b recorded with payloads of these sizes.
   */
  private List<UploadPart> pieceOfB(byte[] state, int chunkSize, int... payloadSizes) {
    ChannelRecording.Builder rec = ChannelRecording.newBuilder().setFrom("a");
    long seq = 2;
    for (int size : payloadSizes) {
      rec.addMessages(
          RecordedMessage.newBuilder()
              .setSeq(seq++)
              .setPayload(ByteString.copyFrom(new byte[size])));
    }
    return RawWorker.upload(
        meta(id, "b").addSent(counter("a", 0)).addReceived(counter("a", 1)),
        state,
        chunkSize,
        List.of(rec.build()));
  }

  @Test
  void aStateChunkOverOneMebibyteIsRefusedAndOneOfExactlyOneMebibyteIsTaken() throws Exception {
    byte[] big = new byte[UploadReceiver.MAX_CHUNK_BYTES + 1];
    Status s = statusOf(RawWorker.send(coordinator.async(), pieceOfB(big, big.length)));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).isEqualTo("state chunk 0 has 1048577 bytes, at most 1048576");

    byte[] fits = new byte[UploadReceiver.MAX_CHUNK_BYTES];
    assertThat(statusOf(RawWorker.send(coordinator.async(), pieceOfB(fits, fits.length))).isOk())
        .isTrue();
  }

  @Test
  void recordedMessagesOverThePerSnapshotLimitAreResourceExhaustedAndAbortTheSnapshot()
      throws Exception {
    Status s = statusOf(RawWorker.send(coordinator.async(), pieceOfB(new byte[4], 4, 6, 5)));
    assertThat(s.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(s.getDescription())
        .isEqualTo("recorded messages exceed the limit of 10 bytes per snapshot");
    assertThat(
            coordinator
                .admin()
                .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                .getManifest()
                .getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
  }

  @Test
  void recordedMessagesAtTheLimitAreTaken() throws Exception {
    assertThat(statusOf(RawWorker.send(coordinator.async(), pieceOfB(new byte[4], 4, 5, 5))).isOk())
        .isTrue();
  }
}
