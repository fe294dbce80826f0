package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.Halt;
import io.cutpoint.api.v1.StartSnapshot;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A real worker's session runs on the worker's event loop, in the coordinator's order. */
class SessionOnTheLoopTest {

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final Worker worker = solo("solo");

  /** A started worker with no channels whose state is always {1, 2, 3}. */
  static Worker solo(String id) {
    return Worker.builder(id)
        .stateHandler(
            new StateHandler() {
              @Override
              public byte[] capture() {
                return new byte[] {1, 2, 3};
              }

              @Override
              public void restore(byte[] state) {}
            })
        .messageHandler((from, seq, payload) -> {})
        .build()
        .start();
  }

  private final CoordinatorSession session =
      new CoordinatorSession(coordinator.channel, worker, SessionOptions.defaults());

  @AfterEach
  void tearDown() {
    session.close();
    worker.close();
    coordinator.close();
  }

  /**
   * A start followed at once by a halt: the snapshot is taken in the epoch it was started for,
   * before the halt, although both commands were waiting on the loop together (a start queued
   * behind them would run after the halt, in the new epoch).
   */
  @Test
  void aStartAndAHaltQueuedTogetherRunInTheirOrder() throws Exception {
    session.start().joined().get(5, TimeUnit.SECONDS);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch held = new CountDownLatch(1);
    worker.execute(
        () -> {
          held.countDown();
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
    coordinator.fake.send(
        CoordinatorMessage.newBuilder()
            .setStartSnapshot(StartSnapshot.newBuilder().setSnapshotId(1).setEpoch(0))
            .build());
    coordinator.fake.send(
        CoordinatorMessage.newBuilder().setHalt(Halt.newBuilder().setEpoch(1)).build());
    release.countDown();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                coordinator.fake.uploads.size() == 1
                    && coordinator.fake.uploads.get(0).status != null
                    && coordinator.fake.uploads.get(0).status.isOk());
    var header = coordinator.fake.uploads.get(0).parts.get(0).getHeader().getMeta();
    assertThat(header.getSnapshotId()).isEqualTo(1);
    assertThat(header.getEpoch()).as("the epoch the snapshot was recorded in").isEqualTo(0);
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.epoch() == 1);
  }
}
