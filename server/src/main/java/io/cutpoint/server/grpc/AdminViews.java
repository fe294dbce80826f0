package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.RollbackPhase;
import io.cutpoint.api.v1.RollbackView;
import io.cutpoint.api.v1.ScheduleView;
import io.cutpoint.api.v1.SnapshotsBlocked;
import io.cutpoint.api.v1.SnapshotsBlockedReason;
import io.cutpoint.server.SnapshotSchedule;
import io.cutpoint.server.lifecycle.SnapshotBlock;
import io.cutpoint.server.rollback.RollbackStatus;

/** The coordinator's domain states as the Admin service's messages. */
final class AdminViews {

  private AdminViews() {}

  static RollbackView rollback(RollbackStatus s) {
    RollbackPhase phase =
        switch (s.phase()) {
          case NONE -> RollbackPhase.ROLLBACK_PHASE_NONE;
          case PREPARING -> RollbackPhase.ROLLBACK_PHASE_PREPARING;
          case RUNNING -> RollbackPhase.ROLLBACK_PHASE_RUNNING;
          case FAILED -> RollbackPhase.ROLLBACK_PHASE_FAILED;
        };
    return RollbackView.newBuilder()
        .setPhase(phase)
        .setSnapshotId(s.snapshotId())
        .setEpoch(s.epoch())
        .addAllWaitingFor(s.waitingFor())
        .setDetail(nullToEmpty(s.detail()))
        .setCause(nullToEmpty(s.cause()))
        .build();
  }

  static ScheduleView schedule(SnapshotSchedule s) {
    return ScheduleView.newBuilder()
        .setIntervalMs(s.interval().toMillis())
        .setPaused(s.paused())
        .build();
  }

  static SnapshotsBlocked blocked(SnapshotBlock b) {
    SnapshotsBlockedReason reason =
        switch (b.reason()) {
          case NO_WORKERS -> SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_NO_WORKERS;
          case WORKERS_LOST -> SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_WORKERS_LOST;
          case WORKERS_NOT_RUNNING ->
              SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_WORKERS_NOT_RUNNING;
          case TOPOLOGY_OPEN -> SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_TOPOLOGY_OPEN;
          case ROLLBACK_IN_PROGRESS ->
              SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_ROLLBACK_IN_PROGRESS;
          case ROLLBACK_FAILED -> SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_ROLLBACK_FAILED;
          case PAUSED -> SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_PAUSED;
          case STORE_UNAVAILABLE ->
              SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_STORE_UNAVAILABLE;
        };
    return SnapshotsBlocked.newBuilder()
        .setReason(reason)
        .addAllWorkers(b.workers())
        .setMessage(b.message())
        .build();
  }

  /** At most 40 characters of {@code s}, for echoing a request's value in a status. */
  static String bounded(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "... (" + s.length() + " characters)";
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
