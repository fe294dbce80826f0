package io.cutpoint.ops.demo.deadlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.util.JsonFormat;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.AnalyzeRequest;
import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.ChannelSummary;
import io.cutpoint.api.v1.DeadlockSet;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.api.v1.WaitEdge;
import io.cutpoint.ops.CutpointCommand;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Dining philosophers end to end: a real coordinator on a loopback port, real workers with their
 * coordinator sessions, snapshots through the Admin service, and {@code Admin.Analyze} on them.
 */
class DeadlockServiceTest {

  private static final Duration READ = Duration.ofSeconds(10);

  @TempDir Path dir;
  private CoordinatorServer server;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private ManagedChannel channel;
  private DiningTable table;
  private String target;

  @BeforeEach
  void startCoordinator() throws Exception {
    server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir)
                .snapshotInterval(Duration.ZERO)
                .snapshotTimeout(Duration.ofSeconds(20))
                .heartbeatInterval(Duration.ofMillis(500))
                .heartbeatTimeout(Duration.ofSeconds(5))
                .build(),
            registry);
    target = "127.0.0.1:" + server.port();
    channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (table != null) {
      table.close();
    }
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    server.close();
    registry.close();
  }

  @Test
  void fatalOrderGetsStuckAndTheAnalysisNamesTheWholeCycle() throws Exception {
    table =
        DiningTable.start(
            new DiningTable.Options(
                    5, 1.0, Philosopher.UNLIMITED, new Philosopher.Timing(0, 0, 0, true), 1)
                .philosopherList(),
            target,
            Duration.ofSeconds(30));
    table.begin();
    await().atMost(Duration.ofSeconds(30)).until(() -> table.stuck(READ));

    AnalyzeResponse r = snapshotAndAnalyze();

    assertThat(r.getDeadlock().getDeadlocked()).isTrue();
    assertThat(r.getDeadlock().getSetsList()).hasSize(1);
    DeadlockSet set = r.getDeadlock().getSets(0);
    assertThat(set.getWorkersList()).containsExactly("p0", "p1", "p2", "p3", "p4");
    assertThat(set.getCycleList()).containsExactly("p0", "p1", "p2", "p3", "p4");
    assertThat(set.getEdgesList())
        .containsExactly(
            edge("p0", "p1", "fork-1"),
            edge("p1", "p2", "fork-2"),
            edge("p2", "p3", "fork-3"),
            edge("p3", "p4", "fork-4"),
            edge("p4", "p0", "fork-0"));
    assertThat(Verdicts.isWholeTable(set, 5)).isTrue();
    assertThat(Verdicts.deadlockLine(r.getSnapshotId(), set))
        .isEqualTo(
            "deadlock in snapshot "
                + r.getSnapshotId()
                + ": p0 -> p1 -> p2 -> p3 -> p4 -> p0 (waiting for fork-1, fork-2, fork-3, fork-4, fork-0)");
    assertThat(r.getTermination().getTerminated())
        .as("nothing will ever happen at a stuck table")
        .isTrue();

    // The same verdict through the command line.
    Run json = cutpoint("analyze", String.valueOf(r.getSnapshotId()), "--json", "--server", target);
    assertThat(json.code()).as(json.err()).isZero();
    AnalyzeResponse.Builder parsed = AnalyzeResponse.newBuilder();
    JsonFormat.parser().merge(json.out(), parsed);
    assertThat(parsed.build()).isEqualTo(r);
    Run text = cutpoint("analyze", String.valueOf(r.getSnapshotId()), "--server", target);
    assertThat(text.code()).isZero();
    assertThat(text.out())
        .contains("deadlock:    YES, 1 deadlocked set(s)")
        .contains("cycle p0 -> p1 -> p2 -> p3 -> p4 -> p0")
        .contains("p4 waits for p0 (fork-0)")
        .contains("terminated:  YES");
  }

  @Test
  void safeOrderNeverDeadlocksAndTheFinishedTableIsReportedTerminated() throws Exception {
    table =
        DiningTable.start(
            new DiningTable.Options(5, 0.0, 8, new Philosopher.Timing(4, 4, 1, true), 2)
                .philosopherList(),
            target,
            Duration.ofSeconds(30));
    table.begin();
    int[] analysed = {0};
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              AnalyzeResponse r = snapshotAndAnalyze();
              analysed[0]++;
              assertThat(r.getDeadlock().getDeadlocked())
                  .as("snapshot %d", r.getSnapshotId())
                  .isFalse();
              return table.finished(READ);
            });

    AnalyzeResponse end = snapshotAndAnalyze();
    assertThat(end.getDeadlock().getDeadlocked()).isFalse();
    assertThat(end.getTermination().getTerminated()).isTrue();
    assertThat(end.getTermination().getActiveWorkersList()).isEmpty();
    assertThat(end.getTermination().getNonEmptyChannelsList()).isEmpty();
    assertThat(table.mealsEaten(READ)).isEqualTo(40);
    assertThat(analysed[0]).isPositive();
  }

  /**
   * p0 eats once; p1 and p2 have nothing to eat. p0 holds fork 0 and asks p1 for fork 1, and
   * initiates a snapshot while p1's and p2's event threads are paused, so that p0's request and its
   * marker both wait for p1. Returns the snapshot, committed once p1 took the request.
   */
  private long p0SnapshotsWhileP1HasNotSeenItsRequest() throws Exception {
    Philosopher.Timing timing = new Philosopher.Timing(0, 0, 0, true);
    table =
        DiningTable.start(
            List.of(
                new Philosopher(0, 3, 1, 0.0, timing, 1),
                new Philosopher(1, 3, 0, 0.0, timing, 2),
                new Philosopher(2, 3, 0, 0.0, timing, 3)),
            target,
            Duration.ofSeconds(30),
            false); // markers in order: see the test
    CountDownLatch releaseP1 = new CountDownLatch(1);
    CountDownLatch releaseP2 = new CountDownLatch(1);
    table.node(1).worker().execute(() -> awaitQuietly(releaseP1));
    table.node(2).worker().execute(() -> awaitQuietly(releaseP2));
    long id;
    try {
      table.begin();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> table.node(0).status().get().phase() == Philosopher.Phase.WANTS_SECOND);
      // p0 initiates: it records "waiting for p1 (fork-1)" before p1 has even seen the request.
      id = table.node(0).session().requestSnapshot().get(20, TimeUnit.SECONDS);
      table.node(0).status().get(10, TimeUnit.SECONDS); // runs after p0's local snapshot was taken
      releaseP1.countDown();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> table.node(1).worker().receivedCount("p0") >= 1);
    } finally {
      releaseP1.countDown();
      releaseP2.countDown();
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin()
                        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                        .getManifest()
                        .getStatus()
                    == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    return id;
  }

  /**
   * With markers in order, p1 takes p0's request before p0's marker (it precedes it on p0->p1, and
   * p2 sends no marker yet), hands fork 1 over, then records on p0's marker: the fork travels
   * inside the cut, and answers p0's wait. (Read ahead, p1 may take the marker first, the request
   * at hand, depending on whether both frames are read before the request's turn: the request is
   * then what travels inside the cut, as consistent a cut, and this schedule is not fixed.)
   */
  @Test
  void aForkKeptInTransitMeansNotTerminatedAndTheChannelIsListed() throws Exception {
    long id = p0SnapshotsWhileP1HasNotSeenItsRequest();
    AnalyzeResponse r = admin().analyze(AnalyzeRequest.newBuilder().setSnapshotId(id).build());

    assertThat(r.getTermination().getTerminated()).isFalse();
    assertThat(r.getTermination().getActiveWorkersList()).as("everybody is passive").isEmpty();
    assertThat(r.getTermination().getNonEmptyChannelsList()).containsExactly(ref("p1", "p0"));
    assertThat(r.getDeadlock().getDeadlocked()).isFalse();
    assertThat(r.getDeadlock().getUnblockedByInFlightList())
        .containsExactly(edge("p0", "p1", "fork-1"));
    assertThat(r.getSummary().getPerChannelList())
        .contains(
            ChannelSummary.newBuilder()
                .setChannel(ref("p1", "p0"))
                .setInFlightMessages(1)
                .setInFlightBytes(5)
                .build());

    await().atMost(Duration.ofSeconds(20)).until(() -> table.finished(READ));
    AnalyzeResponse after = snapshotAndAnalyze();
    assertThat(after.getTermination().getTerminated()).isTrue();
    assertThat(after.getDeadlock().getUnblockedByInFlightList()).isEmpty();
  }

  private AnalyzeResponse snapshotAndAnalyze() {
    TriggerSnapshotResponse t =
        admin()
            .triggerSnapshot(
                TriggerSnapshotRequest.newBuilder().setWait(true).setWaitTimeoutMs(20_000).build());
    assertThat(t.getManifest().getStatus())
        .as(t.getManifest().getReason())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    return admin().analyze(AnalyzeRequest.newBuilder().setSnapshotId(t.getSnapshotId()).build());
  }

  private AdminGrpc.AdminBlockingStub admin() {
    return AdminGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private static WaitEdge edge(String waiter, String holder, String resource) {
    return WaitEdge.newBuilder().setWaiter(waiter).setHolder(holder).setResource(resource).build();
  }

  private static ChannelRef ref(String from, String to) {
    return ChannelRef.newBuilder().setFrom(from).setTo(to).build();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  record Run(int code, String out, String err) {}

  static Run cutpoint(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = CutpointCommand.commandLine();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(args);
    return new Run(code, out.toString(), err.toString());
  }
}
