package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.Restore;
import io.cutpoint.api.v1.Welcome;
import io.cutpoint.api.v1.WorkerMessage.BodyCase;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code Join.fresh}: true only before the worker's first welcome or restore. */
class FreshJoinTest {

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final FakeCoordinator fake = coordinator.fake;
  private final FakeWorker worker = new FakeWorker("w", List.of("a", "c"), List.of("a", "b"));
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
            SessionOptions.defaults().withReconnect(Duration.ofMillis(10), Duration.ofMillis(100)));
    return session.start();
  }

  private Join lastJoinAfterACoordinatorRestart() {
    int before = fake.joins.size();
    coordinator.stop();
    await().atMost(Duration.ofSeconds(5)).until(() -> session.state() == SessionState.CONNECTING);
    coordinator.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> fake.joins.size() > before && session.state() != SessionState.CONNECTING);
    return fake.joins.get(fake.joins.size() - 1);
  }

  @Test
  void theFirstJoinIsFreshAndTheRejoinAfterACoordinatorRestartIsNot() throws Exception {
    start().joined().get(5, TimeUnit.SECONDS);
    assertThat(fake.joins.get(0).getFresh()).isTrue();
    assertThat(worker.fresh()).isFalse();

    assertThat(lastJoinAfterACoordinatorRestart().getFresh()).isFalse();
  }

  @Test
  void refusedJoinsDoNotEndFreshness() throws Exception {
    fake.refusals.add(Status.ALREADY_EXISTS.withDescription("worker w has a live session"));
    start().joined().get(5, TimeUnit.SECONDS);
    assertThat(fake.joins).hasSize(2);
    assertThat(fake.joins).allSatisfy(j -> assertThat(j.getFresh()).isTrue());
  }

  @Test
  void aWorkerThatRestoredRejoinsNotFresh() throws Exception {
    fake.welcome =
        Welcome.newBuilder().setEpoch(2).setHalted(true).setHeartbeatIntervalMs(50).build();
    fake.downloads.put(
        9L,
        List.of(
            Pieces.asDownload(
                Pieces.uploadParts(
                    Pieces.completed(9, Pieces.state(1000, 3)),
                    2,
                    SessionOptions.MAX_CHUNK_BYTES))));
    start().joined().get(5, TimeUnit.SECONDS);
    assertThat(fake.joins.get(0).getFresh()).isTrue();
    fake.send(
        CoordinatorMessage.newBuilder()
            .setRestore(Restore.newBuilder().setSnapshotId(9).setEpoch(2))
            .build());
    await().atMost(Duration.ofSeconds(5)).until(() -> !fake.received(BodyCase.RESTORED).isEmpty());
    assertThat(worker.restores).hasSize(1);

    assertThat(lastJoinAfterACoordinatorRestart().getFresh()).isFalse();
  }
}
