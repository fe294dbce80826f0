package io.cutpoint.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.server.testing.RecordingStore;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The lowest id a lifecycle may start next, which a welcome carries so that a worker can end the
 * recordings of snapshots that no coordinator will end: every snapshot the lifecycle starts later
 * has that id or a higher one, and every snapshot an earlier coordinator over the same store
 * started has a lower one.
 */
class NextSnapshotIdTest {

  @Test
  void aNewLifecycleAnswersOnceTheStoreReservedIdsAndStartsNoSnapshotBelowTheAnswer() {
    LifecycleFixture f = new LifecycleFixture().ring();
    f.effects.hold = true;

    CompletableFuture<Long> next = f.lifecycle.nextSnapshotId();
    assertThat(next).as("no id is known before the store answers").isNotDone();
    f.effects.perform();
    f.effects.hold = false;

    assertThat(next).isCompletedWithValue(f.effects.reserved().get(0));
    assertThat(f.start()).isGreaterThanOrEqualTo(next.join());
  }

  @Test
  void everySnapshotOfAnEarlierCoordinatorIsBelowTheNextIdOfALaterOne() {
    RecordingStore store = new RecordingStore();
    LifecycleFixture earlier = new LifecycleFixture(store).ring();
    long started = earlier.start();
    assertThat(earlier.lifecycle.nextSnapshotId().join()).isGreaterThan(started);

    LifecycleFixture later = new LifecycleFixture(store).ring();
    long next = later.lifecycle.nextSnapshotId().join();

    assertThat(next).isGreaterThan(started);
    assertThat(next).isGreaterThan(java.util.Collections.max(earlier.effects.reserved()));
    assertThat(later.start()).isGreaterThanOrEqualTo(next);
  }
}
