package io.cutpoint.server.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.storage.RawStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyHandle;

/**
 * The store's record of a rollback in progress fails its check after a crash: the rollback may be
 * half done, some workers restored and others not. The store used to drop the record: the restarted
 * coordinator welcomed the workers as running and their sessions resumed them, the restored ones
 * replaying the snapshot's messages, the others going on from their own states.
 */
class DamagedRollbackIntentTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void theWorkersAreHeldAndRolledBackToTheNewestSnapshotThatVerifies() throws Exception {
    try (RollbackCluster c =
        new RollbackCluster(dir, CoordinatorConfig.builder(), "a", "b").start()) {
      long older = c.snapshot().getSnapshotId();
      long newest = c.snapshot().getSnapshotId();
      c.crashWorker("b"); // the rollback stays in progress: b is not there to restore
      c.admin.rollback(RollbackRequest.newBuilder().setSnapshotId(older).build());
      await().atMost(WAIT).until(() -> c.state("a") == WorkerState.WORKER_STATE_HALTED);
      c.stopCoordinator();
      try (RawStore raw = RawStore.open(dir)) {
        ColumnFamilyHandle metadata = raw.handle("metadata");
        byte[] key = "rollback_intent".getBytes(StandardCharsets.UTF_8);
        byte[] value = raw.db().get(metadata, key);
        value[7] ^= 0x40;
        raw.db().put(metadata, key, value);
      }

      c.startCoordinator();
      c.startWorker("b");

      await()
          .atMost(WAIT)
          .until(() -> !c.events(EventType.EVENT_TYPE_ROLLBACK_COMPLETED).isEmpty());
      List<Event> started = c.events(EventType.EVENT_TYPE_ROLLBACK_STARTED);
      assertThat(started).last().extracting(Event::getSnapshotId).isEqualTo(newest);
      assertThat(started).last().extracting(Event::getMessage).asString().contains("damaged");
      assertThat(c.member("a").control().restores)
          .last()
          .satisfies(r -> assertThat(r.snapshotId()).isEqualTo(newest));
    }
  }
}
