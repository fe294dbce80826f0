package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.AbortSnapshot;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.Halt;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.PeerAddress;
import io.cutpoint.api.v1.PeerUpdate;
import io.cutpoint.api.v1.Restore;
import io.cutpoint.api.v1.Resume;
import io.cutpoint.api.v1.SnapshotGranted;
import io.cutpoint.api.v1.StartSnapshot;
import io.cutpoint.api.v1.Welcome;
import io.cutpoint.api.v1.WorkerMessage;
import io.cutpoint.api.v1.WorkerMessage.BodyCase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The session protocol against an in-process fake coordinator and a recording fake worker. */
class CoordinatorSessionTest {

  private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final FakeCoordinator fake = coordinator.fake;
  private final FakeWorker worker = new FakeWorker("w", List.of("a", "c"), List.of("a", "b"));
  private final List<String> events = new CopyOnWriteArrayList<>();
  private CoordinatorSession session;

  @AfterEach
  void tearDown() {
    if (session != null) {
      session.close();
    }
    coordinator.close();
  }

  private CoordinatorSession start() {
    session =
        new CoordinatorSession(
            coordinator.channel,
            worker,
            SessionOptions.defaults()
                .withReconnect(Duration.ofMillis(10), Duration.ofMillis(200))
                .withClock(Clock.fixed(NOW, ZoneOffset.UTC)));
    session.addListener(
        new SessionListener() {
          @Override
          public void stateChanged(SessionState from, SessionState to) {
            events.add(from + "->" + to);
          }

          @Override
          public void restoreFailed(long snapshotId, String reason) {
            events.add("restoreFailed " + snapshotId + " " + reason);
          }
        });
    session.start();
    return session;
  }

  private void joined() throws Exception {
    start().joined().get(5, TimeUnit.SECONDS);
  }

  private void send(CoordinatorMessage.Builder m) {
    fake.send(m.build());
  }

  private void awaitCall(String call) {
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.calls.contains(call));
  }

  /** Waits until the session reports that it gave up restoring {@code snapshotId}. */
  private void awaitRestoreFailed(long snapshotId) {
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.stream().anyMatch(e -> e.startsWith("restoreFailed " + snapshotId)));
  }

  private List<WorkerMessage> awaitReceived(BodyCase kind, int count) {
    await().atMost(Duration.ofSeconds(5)).until(() -> fake.received(kind).size() >= count);
    return fake.received(kind);
  }

  @Test
  void joinDeclaresTheWorkerAndWelcomeAppliesEpochAndPeers() throws Exception {
    worker.epoch.set(0);
    fake.welcome =
        Welcome.newBuilder()
            .setEpoch(3)
            .setHeartbeatIntervalMs(50)
            .addPeers(PeerAddress.newBuilder().setWorkerId("a").setChannelAddress("h1:1"))
            .addPeers(PeerAddress.newBuilder().setWorkerId("c").setChannelAddress("h2:2"))
            .build();
    joined();

    Join join = fake.joins.get(0);
    assertThat(join.getWorkerId()).isEqualTo("w");
    assertThat(join.getChannelAddress()).isEqualTo("127.0.0.1:7001");
    assertThat(join.getOutgoingList()).containsExactly("a", "c");
    assertThat(join.getIncomingList()).containsExactly("a", "b");
    assertThat(join.getEpoch()).isZero();
    assertThat(worker.peers).isEqualTo(Map.of("a", "h1:1", "c", "h2:2"));
    assertThat(worker.epoch()).isEqualTo(3);
    assertThat(worker.calls)
        .containsSubsequence("updatePeers {a=h1:1, c=h2:2}", "halt 3", "resume 3");
    assertThat(session.state()).isEqualTo(SessionState.JOINED);
    assertThat(events).contains("CONNECTING->JOINED");
  }

  @Test
  void aWorkerAlreadyInTheClusterEpochIsNotHalted() throws Exception {
    worker.epoch.set(2);
    fake.welcome = Welcome.newBuilder().setEpoch(2).build();
    joined();
    assertThat(worker.calls).containsExactly("setSnapshotListener");
  }

  @Test
  void heartbeatsArriveAtTheWelcomeIntervalWithTheInjectedClock() throws Exception {
    // 200 ms, neither the fake's usual 50 ms nor the 1 s fallback. The session beats at a fixed
    // rate
    // from the welcome, so the 6th beat cannot come before 1.2 s, and comes long before the 6 s
    // that
    // the fallback would take.
    Duration interval = Duration.ofMillis(200);
    fake.welcome =
        Welcome.newBuilder().setEpoch(0).setHeartbeatIntervalMs((int) interval.toMillis()).build();
    long startNanos = System.nanoTime();
    joined();
    await()
        .atMost(SessionOptions.FALLBACK_HEARTBEAT.multipliedBy(6).minusMillis(1500))
        .until(() -> fake.received(BodyCase.HEARTBEAT).size() >= 6);
    Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
    assertThat(elapsed)
        .as("time to the 6th heartbeat")
        .isGreaterThanOrEqualTo(interval.multipliedBy(6));
    assertThat(fake.received(BodyCase.HEARTBEAT))
        .allMatch(m -> m.getHeartbeat().getSentAtUnixMs() == NOW.toEpochMilli());
  }

  @Test
  void peerUpdatesStartAndAbortReachTheWorker() throws Exception {
    joined();
    send(
        CoordinatorMessage.newBuilder()
            .setPeers(
                PeerUpdate.newBuilder()
                    .addPeers(
                        PeerAddress.newBuilder().setWorkerId("b").setChannelAddress("h3:3"))));
    send(
        CoordinatorMessage.newBuilder()
            .setStartSnapshot(StartSnapshot.newBuilder().setSnapshotId(5).setEpoch(0)));
    send(
        CoordinatorMessage.newBuilder()
            .setAbortSnapshot(AbortSnapshot.newBuilder().setSnapshotId(5).setReason("timeout")));
    awaitCall("abortSnapshot 5");
    assertThat(worker.calls)
        .containsSubsequence("updatePeers {b=h3:3}", "startSnapshot 5", "abortSnapshot 5");
  }

  @Test
  void aStartForAnotherEpochIsNotStartedButReportedFailed() throws Exception {
    joined();
    send(
        CoordinatorMessage.newBuilder()
            .setStartSnapshot(StartSnapshot.newBuilder().setSnapshotId(6).setEpoch(1)));
    WorkerMessage failed = awaitReceived(BodyCase.SNAPSHOT_FAILED, 1).get(0);
    assertThat(failed.getSnapshotFailed().getSnapshotId()).isEqualTo(6);
    assertThat(failed.getSnapshotFailed().getReason()).contains("epoch 1", "epoch 0");
    assertThat(worker.calls).doesNotContain("startSnapshot 6");
  }

  @Test
  void haltIsAnsweredWithHaltedAndResumeRunsTheWorkerAgain() throws Exception {
    joined();
    send(CoordinatorMessage.newBuilder().setHalt(Halt.newBuilder().setEpoch(4)));
    WorkerMessage halted = awaitReceived(BodyCase.HALTED, 1).get(0);
    assertThat(halted.getHalted().getEpoch()).isEqualTo(4);
    assertThat(worker.calls).contains("halt 4");
    assertThat(session.state()).isEqualTo(SessionState.HALTED);

    send(CoordinatorMessage.newBuilder().setResume(Resume.newBuilder().setEpoch(4)));
    awaitCall("resume 4");
    await().until(() -> session.state() == SessionState.JOINED);
    assertThat(events).containsSubsequence("JOINED->HALTED", "HALTED->JOINED");
  }

  @Test
  void aWelcomeDuringARollbackHaltsTheWorkerAndWaitsForRestore() throws Exception {
    fake.welcome = Welcome.newBuilder().setEpoch(5).setHalted(true).build();
    joined();
    assertThat(awaitReceived(BodyCase.HALTED, 1).get(0).getHalted().getEpoch()).isEqualTo(5);
    assertThat(worker.calls).containsExactly("setSnapshotListener", "halt 5");
    assertThat(session.state()).isEqualTo(SessionState.HALTED);
  }

  @Test
  void restoreDownloadsTheCheckedPieceRestoresItAndAnswersRestored() throws Exception {
    byte[] state = Pieces.state(2_500_000, 7);
    fake.downloads.put(9L, List.of(download(state)));
    joined();
    send(CoordinatorMessage.newBuilder().setHalt(Halt.newBuilder().setEpoch(2)));
    send(
        CoordinatorMessage.newBuilder()
            .setRestore(Restore.newBuilder().setSnapshotId(9).setEpoch(2)));

    WorkerMessage restored = awaitReceived(BodyCase.RESTORED, 1).get(0);
    assertThat(restored.getRestored().getEpoch()).isEqualTo(2);
    assertThat(restored.getRestored().getSnapshotId()).isEqualTo(9);
    assertThat(worker.restores).hasSize(1);
    FakeWorker.RestoreCall call = worker.restores.get(0);
    assertThat(call.epoch()).isEqualTo(2);
    assertThat(call.piece().sent()).isEqualTo(Map.of("a", 7L, "c", 3L));
    assertThat(call.piece().received()).isEqualTo(Map.of("a", 4L, "b", 10L));
    assertThat(call.piece().recordings()).isEqualTo(Pieces.cut(9, "a").recordings());
    assertThat(call.state()).isEqualTo(state);
    assertThat(worker.calls).containsSubsequence("halt 2", "restore 2 9");
    assertThat(session.state()).isEqualTo(SessionState.HALTED);
  }

  @Test
  void commandsArrivingDuringARestoreWaitForIt() throws Exception {
    byte[] state = Pieces.state(8 << 20, 17);
    fake.downloads.put(9L, List.of(download(state)));
    joined();
    send(CoordinatorMessage.newBuilder().setHalt(Halt.newBuilder().setEpoch(2)));
    send(
        CoordinatorMessage.newBuilder()
            .setRestore(Restore.newBuilder().setSnapshotId(9).setEpoch(2)));
    send(CoordinatorMessage.newBuilder().setResume(Resume.newBuilder().setEpoch(2)));
    send(
        CoordinatorMessage.newBuilder()
            .setAbortSnapshot(AbortSnapshot.newBuilder().setSnapshotId(8)));

    await().atMost(Duration.ofSeconds(10)).until(() -> worker.calls.contains("abortSnapshot 8"));
    // The download runs on the loop without blocking it, but the resume and the abort that came
    // meanwhile still run after the restore, in arrival order.
    assertThat(worker.calls)
        .containsSubsequence("halt 2", "restore 2 9", "resume 2", "abortSnapshot 8");
    assertThat(awaitReceived(BodyCase.RESTORED, 1)).hasSize(1);
    assertThat(session.state()).isEqualTo(SessionState.JOINED);
  }

  @Test
  void aSixtyFourMebibyteStateIsDownloadedAndRestoredExactly() throws Exception {
    byte[] state = Pieces.state(64 << 20, 70);
    fake.downloads.put(9L, List.of(download(state)));
    joined();
    long started = System.nanoTime();
    send(
        CoordinatorMessage.newBuilder()
            .setRestore(Restore.newBuilder().setSnapshotId(9).setEpoch(1)));
    awaitReceived(BodyCase.RESTORED, 1);
    System.out.println(
        "64 MiB download, check and restore over in-process transport: "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
            + " ms");
    assertThat(worker.restores)
        .singleElement()
        .satisfies(r -> assertThat(r.state()).isEqualTo(state));
  }

  @Test
  void aCorruptDownloadIsRetriedOnceAndThenNotRestored() throws Exception {
    byte[] state = Pieces.state(3_000_000, 8);
    fake.downloads.put(9L, List.of(corrupt(download(state))));
    joined();
    send(
        CoordinatorMessage.newBuilder()
            .setRestore(Restore.newBuilder().setSnapshotId(9).setEpoch(1)));

    awaitRestoreFailed(9);
    assertThat(fake.downloadRequests).hasValue(2);
    assertThat(events).anyMatch(e -> e.contains("state chunk 1 has CRC32C"));
    assertThat(worker.restores).isEmpty();
    assertThat(fake.received(BodyCase.RESTORED)).isEmpty();
  }

  @Test
  void aCorruptDownloadFollowedByAGoodOneRestores() throws Exception {
    byte[] state = Pieces.state(3_000_000, 9);
    List<DownloadPart> good = download(state);
    fake.downloads.put(9L, List.of(corrupt(good), good));
    joined();
    send(
        CoordinatorMessage.newBuilder()
            .setRestore(Restore.newBuilder().setSnapshotId(9).setEpoch(1)));
    awaitReceived(BodyCase.RESTORED, 1);
    assertThat(fake.downloadRequests).hasValue(2);
    assertThat(worker.restores)
        .singleElement()
        .satisfies(r -> assertThat(r.state()).isEqualTo(state));
  }

  /** Joins, then gets a restore of snapshot 9 in epoch 1 whose state the application refuses. */
  private void joinedAndRestoringWhatTheApplicationRefuses() throws Exception {
    fake.downloads.put(9L, List.of(download(Pieces.state(100_000, 7))));
    worker.restoreThrows = new AssertionError("cannot parse its state");
    joined();
    send(
        CoordinatorMessage.newBuilder()
            .setRestore(Restore.newBuilder().setSnapshotId(9).setEpoch(1)));
  }

  /** The application's restore throws (it cannot parse its state): the session says so. */
  @Test
  void aRestoreThatTheApplicationFailsIsReportedAndNotAnswered() throws Exception {
    joinedAndRestoringWhatTheApplicationRefuses();

    awaitRestoreFailed(9);
    assertThat(events).anyMatch(e -> e.contains("cannot parse its state"));
    assertThat(fake.received(BodyCase.RESTORED)).isEmpty();
    // this coordinator's welcome did not say it takes restore_failed (one from before it ends a
    // session that sends it): the next message on the stream is the first it gets after the restore
    var unused = session.requestSnapshot();
    awaitReceived(BodyCase.SNAPSHOT_REQUEST, 1);
    assertThat(fake.received(BodyCase.RESTORE_FAILED)).isEmpty();
  }

  /**
   * A coordinator that takes restore_failed hears of it: its rollback need not wait out a deadline.
   */
  @Test
  void aRestoreThatFailsIsReportedToACoordinatorThatTakesIt() throws Exception {
    fake.welcome = fake.welcome.toBuilder().setTakesRestoreFailed(true).build();
    joinedAndRestoringWhatTheApplicationRefuses();

    assertThat(awaitReceived(BodyCase.RESTORE_FAILED, 1))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.getRestoreFailed().getSnapshotId()).isEqualTo(9);
              assertThat(m.getRestoreFailed().getEpoch()).isEqualTo(1);
              assertThat(m.getRestoreFailed().getReason()).contains("cannot parse its state");
            });
    assertThat(fake.received(BodyCase.RESTORED)).isEmpty();
  }

  @Test
  void aMissingSnapshotIsNotRestored() throws Exception {
    joined();
    send(
        CoordinatorMessage.newBuilder()
            .setRestore(Restore.newBuilder().setSnapshotId(404).setEpoch(1)));
    awaitRestoreFailed(404);
    assertThat(events).anyMatch(e -> e.contains("NOT_FOUND"));
    assertThat(worker.restores).isEmpty();
  }

  @Test
  void aGrantedSnapshotRequestStartsTheSnapshotAndCompletesWithItsId() throws Exception {
    joined();
    CompletableFuture<Long> granted = session.requestSnapshot();
    long requestId =
        awaitReceived(BodyCase.SNAPSHOT_REQUEST, 1).get(0).getSnapshotRequest().getRequestId();
    send(
        CoordinatorMessage.newBuilder()
            .setSnapshotGranted(
                SnapshotGranted.newBuilder()
                    .setRequestId(requestId)
                    .setSnapshotId(12)
                    .setEpoch(0)));
    assertThat(granted.get(5, TimeUnit.SECONDS)).isEqualTo(12);
    assertThat(worker.calls).contains("startSnapshot 12");
  }

  @Test
  void aRefusedSnapshotRequestFailsWithTheReason() throws Exception {
    joined();
    CompletableFuture<Long> refused = session.requestSnapshot();
    long requestId =
        awaitReceived(BodyCase.SNAPSHOT_REQUEST, 1).get(0).getSnapshotRequest().getRequestId();
    send(
        CoordinatorMessage.newBuilder()
            .setSnapshotGranted(
                SnapshotGranted.newBuilder()
                    .setRequestId(requestId)
                    .setRefusedReason("rollback in progress")));
    assertThat(refused)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(SnapshotRefusedException.class)
        .withMessage("rollback in progress");
    assertThat(worker.calls).noneMatch(c -> c.startsWith("startSnapshot"));
  }

  @Test
  void aSnapshotRequestBeforeJoiningFailsAtOnce() {
    fake.ignoreJoins.set(1);
    start();
    assertThat(session.requestSnapshot())
        .failsWithin(Duration.ofSeconds(1))
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aLocalSnapshotFailureIsReportedToTheCoordinator() throws Exception {
    joined();
    worker.listener().failed(7, "recording limit exceeded");
    WorkerMessage failed = awaitReceived(BodyCase.SNAPSHOT_FAILED, 1).get(0);
    assertThat(failed.getSnapshotFailed().getSnapshotId()).isEqualTo(7);
    assertThat(failed.getSnapshotFailed().getReason()).isEqualTo("recording limit exceeded");
  }

  private static List<DownloadPart> download(byte[] state) {
    return Pieces.asDownload(
        Pieces.uploadParts(Pieces.completed(9, state), 2, SessionOptions.MAX_CHUNK_BYTES));
  }

  /** Flips one byte in the second state chunk, leaving its CRC as it was. */
  private static List<DownloadPart> corrupt(List<DownloadPart> parts) {
    List<DownloadPart> out = new ArrayList<>(parts);
    DownloadPart p = out.get(2);
    byte[] data = p.getStateChunk().getData().toByteArray();
    data[1000] ^= 0x40;
    out.set(
        2,
        p.toBuilder()
            .setStateChunk(p.getStateChunk().toBuilder().setData(ByteString.copyFrom(data)))
            .build());
    return out;
  }
}
