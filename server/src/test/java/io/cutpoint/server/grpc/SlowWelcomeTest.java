package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.testing.InProcessCoordinator;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.server.testing.RawWorker;
import io.cutpoint.storage.RocksSnapshotStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A welcome waits for the store to reserve snapshot ids; at a restart that resumes a rollback, the
 * store first verifies the target, which for a large one takes longer than the heartbeat timeout. A
 * worker heartbeats only once welcomed: it must not be declared lost meanwhile, and its heartbeats
 * are due from the welcome on.
 */
class SlowWelcomeTest {

  @TempDir Path dir;

  @Test
  void aWorkerWaitingForItsWelcomeIsNotLostAndItsHeartbeatsAreDueFromTheWelcome() throws Exception {
    long id;
    try (InProcessCoordinator first =
        new InProcessCoordinator(InProcessCoordinator.config(dir).build())) {
      RawWorker a = new RawWorker(first.async(), "a").join(List.of(), List.of());
      a.await(CoordinatorMessage::hasWelcome);
      id =
          first
              .admin()
              .triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance())
              .getSnapshotId();
      RawWorker.send(
              first.async(), RawWorker.upload(RawWorker.meta(id, "a"), new byte[4], 4, List.of()))
          .get(10, TimeUnit.SECONDS);
      a.close();
    }
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir)) {
      store.beginRollback(store.epoch() + 1, id); // under way when that coordinator stopped
    }
    CoordinatorConfig config =
        InProcessCoordinator.config(dir)
            .heartbeatInterval(Duration.ofMillis(50))
            .heartbeatTimeout(Duration.ofMillis(400))
            .build();
    CountDownLatch verifying = new CountDownLatch(1);
    CountDownLatch verified = new CountDownLatch(1);
    try (InProcessCoordinator restarted =
        new InProcessCoordinator(
            config,
            real ->
                InterceptedStore.around(
                    real,
                    (method, args) -> {
                      if (method.equals("verifyIntegrity")) {
                        verifying.countDown();
                        verified.await(30, TimeUnit.SECONDS);
                      }
                    }))) {
      assertThat(verifying.await(10, TimeUnit.SECONDS)).isTrue();
      RawWorker a = new RawWorker(restarted.async(), "a").join(List.of(), List.of());
      try {
        await()
            .during(Duration.ofMillis(1200))
            .atMost(Duration.ofSeconds(5))
            .until(() -> !a.ended.isDone());
        verified.countDown();
        a.await(CoordinatorMessage::hasWelcome);
        // a worker's first heartbeat comes an interval after its welcome
        await()
            .during(Duration.ofMillis(200))
            .atMost(Duration.ofSeconds(5))
            .until(() -> !a.ended.isDone());
      } finally {
        verified.countDown();
        a.close();
      }
    }
  }
}
