package io.cutpoint.server.limits;

import static io.cutpoint.server.testing.RawWorker.counter;
import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.LocalSnapshotFailed;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker-supplied input that is too big, over loopback Netty (whose trailers and message limits are
 * what broke): every join, upload and report past a limit is refused with its own code and a short
 * description, and nothing unbounded is stored.
 */
class HostileJoinTest {

  @TempDir Path dir;
  private CoordinatorServer server;
  private ManagedChannel channel;
  private final List<RawWorker> workers = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    workers.forEach(RawWorker::close);
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private void start(CoordinatorConfig.WorkerLimits limits) throws Exception {
    server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir)
                .snapshotInterval(Duration.ZERO)
                .heartbeatInterval(Duration.ofMillis(200))
                .heartbeatTimeout(Duration.ofSeconds(30))
                .limits(limits)
                .build(),
            new SimpleMeterRegistry());
    // A client limit like the CLI's (4 MiB): a bigger answer would not fit.
    channel =
        NettyChannelBuilder.forTarget(server.target())
            .usePlaintext()
            .maxInboundMessageSize(4 << 20)
            .build();
  }

  private RawWorker worker(String id) {
    RawWorker w = new RawWorker(CoordinatorGrpc.newStub(channel), id);
    workers.add(w);
    return w;
  }

  private AdminGrpc.AdminBlockingStub admin() {
    return AdminGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private static void assertShort(Status s, Status.Code code) {
    assertThat(s.getCode()).as("%s", s).isEqualTo(code);
    assertThat(s.getDescription()).hasSizeLessThan(1100);
  }

  @Test
  void anEightMebibyteJoinAddressIsInvalidArgumentWithAShortDescription() throws Exception {
    start(CoordinatorConfig.WorkerLimits.DEFAULT);
    RawWorker w =
        worker("a")
            .join(
                Join.newBuilder()
                    .setWorkerId("a")
                    .setChannelAddress("h".repeat(8 << 20) + ":1")
                    .build());
    Status s = w.endStatus();
    assertShort(s, Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription())
        .contains("channel address is " + ((8 << 20) + 2) + " characters long");
  }

  @Test
  void aDuplicateCounterWithAHugePeerNameIsRefusedShortAndTheWorkerStaysUsable() throws Exception {
    start(CoordinatorConfig.WorkerLimits.DEFAULT);
    RawWorker a = worker("a").join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    long id = admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
    String huge = "p".repeat(7 << 20);
    var parts =
        RawWorker.upload(
            meta(id, "a").addSent(counter(huge, 1)).addSent(counter(huge, 2)),
            new byte[0],
            1,
            List.of());
    Status s = statusOf(RawWorker.send(CoordinatorGrpc.newStub(channel), parts));
    assertShort(s, Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription())
        .startsWith("header: sent counter: worker id is " + (7 << 20) + " characters long");
    // the real piece still goes in, and the snapshot completes
    RawWorker.send(
            CoordinatorGrpc.newStub(channel),
            RawWorker.upload(meta(id, "a"), new byte[3], 2, List.of()))
        .get(30, TimeUnit.SECONDS);
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin()
                        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                        .getManifest()
                        .getStatus()
                    == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
  }

  @Test
  void aHugeFailureReasonIsStoredCutShortAndListAndShowStillWork() throws Exception {
    start(CoordinatorConfig.WorkerLimits.DEFAULT);
    RawWorker a = worker("a").join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    long id = admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
    a.send(
        WorkerMessage.newBuilder()
            .setSnapshotFailed(
                LocalSnapshotFailed.newBuilder().setSnapshotId(id).setReason("r".repeat(5 << 20)))
            .build());
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin()
                        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                        .getManifest()
                        .getStatus()
                    != SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    var manifest =
        admin()
            .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
            .getManifest();
    assertThat(manifest.getReason())
        .hasSizeLessThan(2000)
        .contains("(" + (5 << 20) + " characters)");
    assertThat(admin().listSnapshots(ListSnapshotsRequest.getDefaultInstance()).getSnapshotsCount())
        .isEqualTo(1);
  }

  @Test
  void aJoinDeclaringMorePeersThanTheLimitIsRefusedAndTheClusterViewStaysSmall() throws Exception {
    start(new CoordinatorConfig.WorkerLimits(1024, 100, 128));
    List<String> many =
        IntStream.range(0, 100_000).mapToObj(i -> "peer-" + "x".repeat(100) + i).toList();
    RawWorker greedy = worker("greedy").join(many, List.of());
    Status s = greedy.endStatus();
    assertShort(s, Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription())
        .isEqualTo(
            "worker declares 100000 outgoing channels; at most 100 are allowed (max-channels-per-worker)");
    // exactly the limit is admitted
    RawWorker ok = worker("ok").join(many.subList(0, 100), List.of());
    ok.await(CoordinatorMessage::hasWelcome);
    assertThat(admin().getCluster(GetClusterRequest.getDefaultInstance()).getWorkersCount())
        .isEqualTo(1);
  }

  @Test
  void aClusterViewLargerThanTheClientsLimitComesInPagesThatEachFit() throws Exception {
    start(CoordinatorConfig.WorkerLimits.DEFAULT);
    int n = 40;
    for (int w = 0; w < n; w++) {
      String id = String.format("w%02d", w);
      List<String> peers =
          IntStream.range(0, 1000).mapToObj(i -> id + "-peer-" + "z".repeat(110) + i).toList();
      worker(id).join(peers, List.of()).await(CoordinatorMessage::hasWelcome);
    }
    // the whole view is about 5 MiB: one answer would not fit the 4 MiB client limit
    List<String> seen = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      var page = admin().getCluster(GetClusterRequest.newBuilder().setPageToken(token).build());
      assertThat(page.getSerializedSize()).isLessThan(4 << 20);
      assertThat(page.getTotalWorkers()).isEqualTo(n);
      page.getWorkersList().forEach(v -> seen.add(v.getDecl().getWorkerId()));
      token = page.getNextPageToken();
      pages++;
    } while (!token.isEmpty());
    assertThat(pages).isGreaterThan(1);
    assertThat(seen).hasSize(n).doesNotHaveDuplicates().isSorted();
    assertThatThrownBy(
            () ->
                admin()
                    .getCluster(GetClusterRequest.newBuilder().setPageToken("bad token").build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }

  @Test
  void snapshotRefusalListingThousandsOfMissingPeersReachesTheCallerWithItsOwnCode()
      throws Exception {
    start(new CoordinatorConfig.WorkerLimits(1024, 2000, 128));
    List<String> missing =
        IntStream.range(0, 2000).mapToObj(i -> "missing-peer-" + "y".repeat(100) + i).toList();
    RawWorker a = worker("a").join(missing, List.of());
    a.await(CoordinatorMessage::hasWelcome);
    assertThatThrownBy(() -> admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertShort(e.getStatus(), Status.Code.FAILED_PRECONDITION));
  }

  @Test
  void aNewWorkerPastMaxWorkersIsResourceExhaustedWhileAKnownOneMayRejoin() throws Exception {
    start(new CoordinatorConfig.WorkerLimits(2, 1024, 128));
    RawWorker a = worker("a").join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    RawWorker b = worker("b").join(List.of(), List.of());
    b.await(CoordinatorMessage::hasWelcome);
    Status s = worker("c").join(List.of(), List.of()).endStatus();
    assertShort(s, Status.Code.RESOURCE_EXHAUSTED);
    assertThat(s.getDescription()).contains("max-workers");
    b.close();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !server.context().membership().isLive("b"));
    worker("b").join(List.of(), List.of()).await(CoordinatorMessage::hasWelcome);
  }

  @Test
  void anIdLongerThanTheConfiguredLimitIsRefused() throws Exception {
    start(new CoordinatorConfig.WorkerLimits(1024, 1024, 8));
    Status s = worker("abcdefghi").join(List.of(), List.of()).endStatus();
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription())
        .isEqualTo("worker id is 9 characters long; at most 8 are allowed");
    worker("abcdefgh").join(List.of(), List.of()).await(CoordinatorMessage::hasWelcome);
  }

  @Test
  void aPieceRecordedInAnotherEpochIsRefusedAndTheRightOneCompletesTheSnapshot() throws Exception {
    start(CoordinatorConfig.WorkerLimits.DEFAULT);
    RawWorker a = worker("a").join(List.of(), List.of());
    long epoch = a.await(CoordinatorMessage::hasWelcome).getWelcome().getEpoch();
    long id = admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
    Status s =
        statusOf(
            RawWorker.send(
                CoordinatorGrpc.newStub(channel),
                RawWorker.upload(meta(id, "a").setEpoch(epoch + 1000), new byte[3], 2, List.of())));
    assertThat(s.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(s.getDescription())
        .isEqualTo(
            "the piece was recorded in epoch "
                + (epoch + 1000)
                + ", snapshot "
                + id
                + " belongs to epoch "
                + epoch);
    RawWorker.send(
            CoordinatorGrpc.newStub(channel),
            RawWorker.upload(meta(id, "a").setEpoch(epoch), new byte[3], 2, List.of()))
        .get(30, TimeUnit.SECONDS);
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin()
                        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                        .getManifest()
                        .getStatus()
                    == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
  }

  private static Status statusOf(java.util.concurrent.CompletableFuture<?> f) throws Exception {
    try {
      f.get(30, TimeUnit.SECONDS);
      return Status.OK;
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause());
    }
  }
}
