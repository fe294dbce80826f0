package io.cutpoint.server.grpc;

import static io.cutpoint.server.testing.RawPair.statusOf;
import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.ChannelClosed;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.UploadResult;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.api.v1.WorkerTimeline;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.RawPair;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's half of a snapshot's trace: each piece in the stored manifest says, on the
 * coordinator's clock, when its header arrived and when it was delivered, after the header and
 * within the snapshot; the worker's own timeline is kept as it sent it. A header whose timeline
 * names more channels than a worker may have is refused before anything of it is kept.
 */
class SnapshotTraceTest {

  @TempDir Path dir;
  private RawPair pair;
  private InProcessCoordinator coordinator;
  private long id;

  @BeforeEach
  void setUp() throws Exception {
    pair =
        new RawPair(
            InProcessCoordinator.config(dir)
                .limits(new CoordinatorConfig.WorkerLimits(16, 4, 128))
                .build());
    coordinator = pair.coordinator;
    id = pair.snapshotId;
  }

  @AfterEach
  void tearDown() throws Exception {
    pair.close();
  }

  private static WorkerTimeline timeline(String closedFrom, int closedEntries) {
    WorkerTimeline.Builder t =
        WorkerTimeline.newBuilder()
            .setBeganMicros(900)
            .setCapturedMicros(850)
            .setCompletedMicros(30);
    for (int i = 0; i < closedEntries; i++) {
      t.addClosed(
          ChannelClosed.newBuilder().setFrom(closedFrom + (i == 0 ? "" : "-" + i)).setMicros(30));
    }
    return t.build();
  }

  private CompletableFuture<UploadResult> upload(String worker, String peer, WorkerTimeline t) {
    return RawWorker.send(
        coordinator.async(),
        RawWorker.upload(
            meta(id, worker).addSent(counter(peer, 0)).addReceived(counter(peer, 0)).setTimeline(t),
            new byte[] {1, 2, 3},
            1024,
            List.of()));
  }

  @Test
  void theStoredManifestPlacesEachPieceOnTheCoordinatorsClock() throws Exception {
    WorkerTimeline ofA = timeline("b", 1);
    upload("a", "b", ofA).get(30, TimeUnit.SECONDS);
    upload("b", "a", timeline("a", 1)).get(30, TimeUnit.SECONDS);

    SnapshotManifest m =
        coordinator
            .admin()
            .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
            .getManifest();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    long end = m.getTimings().getTotalMicros();
    for (WorkerPiece p : m.getPiecesList()) {
      assertThat(p.getHeaderReceivedMicros())
          .as("header of %s in %s", p.getWorkerId(), m)
          .isPositive();
      assertThat(p.getDeliveredMicros())
          .as("delivery of %s", p.getWorkerId())
          .isGreaterThanOrEqualTo(p.getHeaderReceivedMicros())
          .isLessThanOrEqualTo(end);
    }
    assertThat(m.getPieces(0).getMeta().getTimeline()).isEqualTo(ofA);
  }

  @Test
  void aTimelineNamingMoreChannelsThanAWorkerMayHaveIsRefused() throws Exception {
    Status s = statusOf(upload("a", "b", timeline("b", 5)));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription())
        .isEqualTo("header's timeline lists 5 closed channels; at most 4 are allowed");
    assertThat(statusOf(upload("a", "b", timeline("b", 4))).isOk()).isTrue();
  }
}
