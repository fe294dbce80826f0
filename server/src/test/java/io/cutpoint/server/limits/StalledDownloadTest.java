package io.cutpoint.server.limits;

import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Downloads whose receivers never read hold no one else's restore, and end at the download timeout;
 * one that finds every transfer thread busy waits for one.
 */
class StalledDownloadTest {

  private static final int STATE_BYTES = 8 << 20;

  @TempDir Path dir;
  private CoordinatorServer server;
  private ManagedChannel channel;
  private RawWorker a;

  @AfterEach
  void tearDown() throws Exception {
    if (a != null) {
      a.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  /** A download that reads nothing until {@link #readAll} is called. */
  private static final class Stalled
      implements ClientResponseObserver<DownloadRequest, DownloadPart> {
    final CompletableFuture<Status> ended = new CompletableFuture<>();
    final AtomicLong parts = new AtomicLong();
    volatile ClientCallStreamObserver<DownloadRequest> call;

    @Override
    public void beforeStart(ClientCallStreamObserver<DownloadRequest> requestStream) {
      call = requestStream;
      requestStream.disableAutoRequestWithInitial(0);
    }

    void readAll() {
      call.request(Integer.MAX_VALUE);
    }

    @Override
    public void onNext(DownloadPart value) {
      parts.incrementAndGet();
    }

    @Override
    public void onError(Throwable t) {
      ended.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      ended.complete(Status.OK);
    }
  }

  /**
   * Starts the coordinator, joins worker a, and has it upload a random state of {@code stateBytes}
   * (in chunks of {@code chunkBytes}) as its piece of a snapshot, which completes.
   *
   * @return the snapshot's id
   */
  private long snapshotOfA(int stateBytes, int chunkBytes) throws Exception {
    server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir)
                .snapshotInterval(Duration.ZERO)
                .heartbeatTimeout(Duration.ofSeconds(60))
                .downloadTimeout(Duration.ofSeconds(15))
                .build(),
            new SimpleMeterRegistry());
    channel = NettyChannelBuilder.forTarget(server.target()).usePlaintext().build();
    CoordinatorGrpc.CoordinatorStub stub = CoordinatorGrpc.newStub(channel);
    a = new RawWorker(stub, "a").join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    long id = admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
    byte[] state = new byte[stateBytes];
    new java.util.Random(7).nextBytes(state);
    RawWorker.send(stub, RawWorker.upload(meta(id, "a"), state, chunkBytes, List.of()))
        .get(60, TimeUnit.SECONDS);
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin
                        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                        .getManifest()
                        .getStatus()
                    == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    return id;
  }

  @Test
  void sixDownloadsThatNeverReadDoNotBlockARestoreAndEndAtTheDownloadTimeout() throws Exception {
    long id = snapshotOfA(STATE_BYTES, 1 << 20);
    DownloadRequest request = a.downloadRequest(id);

    List<Stalled> stalled = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Stalled s = new Stalled();
      a.transfers().downloadSnapshot(request, s);
      stalled.add(s);
    }
    // A restore that reads gets its whole piece while the six sit there.
    long received = 0;
    var it =
        a.blockingTransfers(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .downloadSnapshot(request);
    while (it.hasNext()) {
      DownloadPart p = it.next();
      received += p.getStateChunk().getData().size();
    }
    assertThat(received).isEqualTo(STATE_BYTES);
    assertThat(stalled).allSatisfy(s -> assertThat(s.ended).isNotDone());

    // At the download timeout the coordinator gives up on them and frees their threads.
    ThreadPoolExecutor transfers = (ThreadPoolExecutor) server.context().transfers();
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> transfers.getActiveCount() == 0);
    for (Stalled s : stalled) {
      s.readAll();
      Status end = s.ended.get(30, TimeUnit.SECONDS);
      assertThat(end.getCode()).as("%s", end).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(end.getDescription()).contains("download-timeout");
    }
  }

  /**
   * A download that arrives while every transfer thread is busy waits for one, instead of being
   * refused: a rollback of more workers than {@link CoordinatorServer#MAX_DOWNLOADS} downloads
   * every piece at once, and a worker gives up a restore after two refusals.
   */
  @Test
  void aDownloadWaitsForATransferThreadInsteadOfBeingRefused() throws Exception {
    long id = snapshotOfA(3000, 1024);
    CountDownLatch busy = new CountDownLatch(1);
    try {
      // every transfer thread taken, as by as many downloads in progress
      ThreadPoolExecutor transfers = (ThreadPoolExecutor) server.context().transfers();
      for (int i = 0; i < CoordinatorServer.MAX_DOWNLOADS; i++) {
        transfers.execute(
            () -> {
              try {
                busy.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
      }
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> transfers.getActiveCount() == CoordinatorServer.MAX_DOWNLOADS);

      CompletableFuture<Long> received =
          CompletableFuture.supplyAsync(
              () -> {
                long bytes = 0;
                Iterator<DownloadPart> it =
                    a.blockingTransfers(channel)
                        .withDeadlineAfter(60, TimeUnit.SECONDS)
                        .downloadSnapshot(a.downloadRequest(id));
                while (it.hasNext()) {
                  bytes += it.next().getStateChunk().getData().size();
                }
                return bytes;
              });
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> transfers.getQueue().size() == 1);
      assertThat(received).isNotDone();

      busy.countDown();
      assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo(3000);
    } finally {
      busy.countDown();
    }
  }
}
