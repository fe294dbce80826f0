package io.cutpoint.server.limits;

import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A download that arrives while every transfer thread is busy waits for one, instead of being
 * refused: a rollback of more workers than {@link CoordinatorServer#MAX_DOWNLOADS} downloads every
 * piece at once, and a worker gives up a restore after two refusals.
 */
class QueuedDownloadTest {

  @TempDir Path dir;
  private CoordinatorServer server;
  private ManagedChannel channel;
  private RawWorker a;
  private final CountDownLatch busy = new CountDownLatch(1);

  @AfterEach
  void tearDown() throws Exception {
    busy.countDown();
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

  @Test
  void aDownloadWaitsForATransferThreadInsteadOfBeingRefused() throws Exception {
    server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir)
                .snapshotInterval(Duration.ZERO)
                .heartbeatTimeout(Duration.ofSeconds(60))
                .build(),
            new SimpleMeterRegistry());
    channel = NettyChannelBuilder.forTarget(server.target()).usePlaintext().build();
    CoordinatorGrpc.CoordinatorStub stub = CoordinatorGrpc.newStub(channel);
    a = new RawWorker(stub, "a").join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    long id = admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
    byte[] state = new byte[3000];
    new java.util.Random(3).nextBytes(state);
    RawWorker.send(stub, RawWorker.upload(meta(id, "a"), state, 1024, List.of()))
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
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> transfers.getQueue().size() == 1);
    assertThat(received).isNotDone();

    busy.countDown();
    assertThat(received.get(30, TimeUnit.SECONDS)).isEqualTo(state.length);
  }
}
