package io.cutpoint.ops.demo;

import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.SnapshotsBlockedReason;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.api.v1.WorkerView;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import java.util.List;
import java.util.Optional;

/**
 * Says why a {@code --connect} coordinator starts no snapshots, and which workers block them, once
 * per change: a worker left lost by an earlier application blocks every snapshot until it returns
 * or is removed.
 */
final class BlockedReport {

  /** What was said last: the reason and the workers; empty when snapshots start. */
  private String said = "";

  /**
   * @param view the cluster, read after the demo's last trigger
   * @param refusal why that trigger was refused, or null when it started a snapshot
   * @return the line to show, when what blocks the snapshots changed
   */
  Optional<DemoEvent> observe(ClusterView view, String refusal) {
    String reason;
    List<String> workers;
    String why;
    if (view.hasSnapshotsBlocked()
        && view.getSnapshotsBlocked().getReason()
            != SnapshotsBlockedReason.SNAPSHOTS_BLOCKED_REASON_UNSPECIFIED) {
      reason = Human.enumName(view.getSnapshotsBlocked().getReason(), "SNAPSHOTS_BLOCKED_REASON_");
      workers = view.getSnapshotsBlocked().getWorkersList();
      why = view.getSnapshotsBlocked().getMessage();
    } else if (refusal != null && view.getPendingSnapshotsCount() == 0) {
      // Refused although none is pending: a state of the cluster, not a snapshot in the way.
      workers =
          view.getWorkersList().stream()
              .filter(w -> w.getState() != WorkerState.WORKER_STATE_RUNNING)
              .map(w -> w.getDecl().getWorkerId())
              .toList();
      reason = workers.isEmpty() ? "refused" : notRunning(view);
      why = refusal;
    } else {
      return said.isEmpty()
          ? Optional.empty()
          : changedTo("", List.of(), "", "snapshots start again");
    }
    String text =
        "snapshots cannot start ("
            + reason.replace('_', ' ')
            + ")"
            + (workers.isEmpty() ? "" : ", blocked by " + String.join(", ", workers))
            + ": "
            + why
            + (reason.equals("workers_lost")
                ? "; 'cutpoint worker remove ID' forgets a worker that " + "will not return"
                : "");
    return changedTo(reason + " " + workers, workers, reason, text);
  }

  /** True while the last thing said is that snapshots cannot start. */
  boolean blocking() {
    return !said.isEmpty();
  }

  private Optional<DemoEvent> changedTo(
      String key, List<String> workers, String reason, String text) {
    if (key.equals(said)) {
      return Optional.empty();
    }
    said = key;
    return Optional.of(
        DemoEvent.of(
            "blocked",
            text,
            Json.object()
                .put("blocked", !key.isEmpty())
                .put("reason", reason)
                .put("workers", String.join(",", workers))
                .put("message", text)));
  }

  /** {@code workers_lost} when a worker has no session, else {@code workers_not_running}. */
  private static String notRunning(ClusterView view) {
    boolean lost =
        view.getWorkersList().stream()
            .map(WorkerView::getState)
            .anyMatch(s -> s == WorkerState.WORKER_STATE_LOST);
    return lost ? "workers_lost" : "workers_not_running";
  }
}
