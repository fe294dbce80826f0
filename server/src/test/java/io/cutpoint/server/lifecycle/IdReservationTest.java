package io.cutpoint.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.storage.RocksSnapshotStore;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshot ids reserved ahead by the lifecycle, and never used, are not handed out again after a
 * restart: a real store continues above the whole reserved block.
 */
class IdReservationTest {

  @TempDir Path dir;

  @Test
  void idsReservedAheadAreNeverHandedOutAgainAfterARestart() {
    long first;
    List<Long> reserved;
    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir)) {
      LifecycleFixture f = new LifecycleFixture(store).ring();
      first = f.start();
      reserved = f.effects.reserved();
    }
    assertThat(reserved).hasSize(SnapshotLifecycle.ID_BLOCK).startsWith(first);

    try (RocksSnapshotStore store = RocksSnapshotStore.open(dir)) {
      LifecycleFixture f = new LifecycleFixture(store).ring();
      long next = f.start();

      assertThat(next).isGreaterThan(Collections.max(reserved));
      assertThat(f.effects.reserved()).doesNotContainAnyElementsOf(reserved);
    }
  }
}
