package io.cutpoint.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.SnapshotsBlocked;
import io.cutpoint.api.v1.SnapshotsBlockedReason;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.api.v1.WorkerView;
import org.junit.jupiter.api.Test;

class BlockedReportTest {

  private static final String REFUSAL =
      "no snapshot started: workers without a live session: [bank-5]";

  private static ClusterView withLost(String id) {
    return ClusterView.newBuilder()
        .addWorkers(
            WorkerView.newBuilder()
                .setDecl(WorkerDecl.newBuilder().setWorkerId("bank-1"))
                .setState(WorkerState.WORKER_STATE_RUNNING))
        .addWorkers(
            WorkerView.newBuilder()
                .setDecl(WorkerDecl.newBuilder().setWorkerId(id))
                .setState(WorkerState.WORKER_STATE_LOST))
        .build();
  }

  @Test
  void aRefusalNamesTheWorkersThatAreNotRunningOncePerChange() {
    BlockedReport r = new BlockedReport();
    assertThat(r.observe(withLost("bank-5"), REFUSAL))
        .get()
        .extracting(DemoEvent::text)
        .asString()
        .startsWith("snapshots cannot start (workers lost), blocked by bank-5: " + REFUSAL);
    assertThat(r.observe(withLost("bank-5"), REFUSAL)).isEmpty();
    assertThat(r.blocking()).isTrue();
    assertThat(r.observe(withLost("bank-6"), REFUSAL))
        .get()
        .extracting(DemoEvent::text)
        .asString()
        .contains("blocked by bank-6");
    assertThat(r.observe(ClusterView.getDefaultInstance(), null))
        .get()
        .extracting(DemoEvent::text)
        .isEqualTo("snapshots start again");
    assertThat(r.observe(ClusterView.getDefaultInstance(), null)).isEmpty();
    assertThat(r.blocking()).isFalse();
  }

  @Test
  void theCoordinatorsOwnReasonWinsAndARefusalWhileASnapshotIsPendingIsNotABlock() {
    BlockedReport r = new BlockedReport();
    ClusterView pending = ClusterView.newBuilder().addPendingSnapshots(7).build();
    assertThat(
            r.observe(
                pending, "no snapshot started: 1 snapshot(s) pending, at most 1 at once: [7]"))
        .isEmpty();
    ClusterView paused =
        ClusterView.newBuilder()
            .setSnapshotsBlocked(
                SnapshotsBlocked.newBuilder()
                    .setReason(SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_PAUSED)
                    .setMessage("an operator paused the periodic snapshots"))
            .build();
    assertThat(r.observe(paused, null))
        .get()
        .extracting(DemoEvent::text)
        .isEqualTo("snapshots cannot start (paused): an operator paused the periodic snapshots");
  }
}
