package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.StartSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A worker acts on the commands of the newest leader term it has seen, and of no older one. */
class LeaderTermTest {

  private final InProcessCoordinator coordinator = new InProcessCoordinator();
  private final FakeCoordinator fake = coordinator.fake;
  private final FakeWorker worker = new FakeWorker("t", List.of("a"), List.of("b"));
  private CoordinatorSession session;

  @AfterEach
  void tearDown() {
    if (session != null) {
      session.close();
    }
    coordinator.close();
  }

  private static CoordinatorMessage start(long snapshotId, long term) {
    return CoordinatorMessage.newBuilder()
        .setStartSnapshot(StartSnapshot.newBuilder().setSnapshotId(snapshotId).setEpoch(0))
        .setTerm(term)
        .build();
  }

  @Test
  void aCommandOfAnOlderLeaderTermIsRefusedAndTheSessionJoinsAgain() throws Exception {
    fake.term = 5;
    session =
        new CoordinatorSession(
                coordinator.channel,
                worker,
                SessionOptions.defaults()
                    .withReconnect(Duration.ofMillis(10), Duration.ofMillis(100)))
            .start();
    session.joined().get(5, TimeUnit.SECONDS);

    fake.send(start(7, 4)); // a replaced leader's command
    await().atMost(Duration.ofSeconds(5)).until(() -> fake.joins.size() >= 2 && fake.live());
    assertThat(worker.calls).doesNotContain("startSnapshot 7");
    assertThat(session.refusedStaleTermMessages()).isEqualTo(1);

    fake.send(start(8, 5));
    await().atMost(Duration.ofSeconds(5)).until(() -> worker.calls.contains("startSnapshot 8"));
    assertThat(worker.calls).doesNotContain("startSnapshot 7");
  }

  @Test
  void termZeroIsACoordinatorWithoutHighAvailabilityAndAlwaysAdmitted() {
    TermFence fence = new TermFence("w");
    assertThat(fence.admit(0, "welcome")).isTrue();
    assertThat(fence.admit(3, "welcome")).isTrue();
    assertThat(fence.admit(0, "start")).isTrue();
    assertThat(fence.admit(2, "start")).isFalse();
    assertThat(fence.admit(3, "start")).isTrue();
    assertThat(fence.admit(4, "start")).isTrue();
    assertThat(fence.admit(3, "start")).isFalse();
    assertThat(fence.highest()).isEqualTo(4);
    assertThat(fence.refused()).isEqualTo(2);
  }
}
