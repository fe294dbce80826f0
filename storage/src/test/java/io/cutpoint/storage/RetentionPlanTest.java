package io.cutpoint.storage;

import static io.cutpoint.api.v1.SnapshotStatus.SNAPSHOT_STATUS_ABORTED;
import static io.cutpoint.api.v1.SnapshotStatus.SNAPSHOT_STATUS_COMPLETE;
import static io.cutpoint.api.v1.SnapshotStatus.SNAPSHOT_STATUS_FAILED;
import static io.cutpoint.api.v1.SnapshotStatus.SNAPSHOT_STATUS_PENDING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.storage.RetentionPlan.Entry;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RetentionPlanTest {

  @Test
  void keepsTheNewestCompleteOnesPlusPinnedPendingAndProtected() {
    List<Entry> newestFirst =
        List.of(
            new Entry(9, SNAPSHOT_STATUS_PENDING, false),
            new Entry(8, SNAPSHOT_STATUS_COMPLETE, false),
            new Entry(7, SNAPSHOT_STATUS_COMPLETE, false),
            new Entry(6, SNAPSHOT_STATUS_COMPLETE, false),
            new Entry(5, SNAPSHOT_STATUS_COMPLETE, true),
            new Entry(4, SNAPSHOT_STATUS_COMPLETE, false),
            new Entry(3, SNAPSHOT_STATUS_COMPLETE, false),
            new Entry(2, SNAPSHOT_STATUS_COMPLETE, false));
    assertThat(RetentionPlan.toDelete(newestFirst, 2, Set.of(3L))).containsExactly(6L, 4L, 2L);
  }

  @Test
  void keepsABoundedHistoryOfAbortedAndFailedManifests() {
    List<Entry> newestFirst =
        List.of(
            new Entry(6, SNAPSHOT_STATUS_ABORTED, false),
            new Entry(5, SNAPSHOT_STATUS_COMPLETE, false),
            new Entry(4, SNAPSHOT_STATUS_FAILED, false),
            new Entry(3, SNAPSHOT_STATUS_ABORTED, true),
            new Entry(2, SNAPSHOT_STATUS_FAILED, false),
            new Entry(1, SNAPSHOT_STATUS_ABORTED, false));
    assertThat(RetentionPlan.toDelete(newestFirst, 2, Set.of())).containsExactly(2L, 1L);
  }

  @Test
  void refusesToKeepNothing() {
    assertThatThrownBy(() -> RetentionPlan.toDelete(List.of(), 0, Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
  }
}
