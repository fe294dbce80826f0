package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.RollbackView;
import io.cutpoint.api.v1.ScheduleView;
import io.cutpoint.api.v1.WorkerView;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import io.cutpoint.ops.format.Table;
import java.io.PrintWriter;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;

@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = "Show the workers, their states and channels, and the snapshots in flight.")
public final class ClusterCommand extends AdminCommand {

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    ClusterView c = all(client);
    if (json()) {
      out.println(Json.pretty(c));
      return ExitCodes.OK;
    }
    out.print(render(c, System.currentTimeMillis()));
    return ExitCodes.OK;
  }

  /** Every page of the cluster view, as one view (each page fits the CLI's message limit). */
  static ClusterView all(AdminClient client) {
    ClusterView first = client.stub().getCluster(GetClusterRequest.getDefaultInstance());
    ClusterView.Builder whole = first.toBuilder().clearNextPageToken();
    String token = first.getNextPageToken();
    while (!token.isEmpty()) {
      ClusterView page =
          client.stub().getCluster(GetClusterRequest.newBuilder().setPageToken(token).build());
      whole.addAllWorkers(page.getWorkersList()).addAllChannels(page.getChannelsList());
      token = page.getNextPageToken();
    }
    return whole.build();
  }

  /** The rollback in words: {@code no}, {@code in progress (...)}, {@code failed (reason)}. */
  static String rollback(RollbackView r) {
    return switch (r.getPhase()) {
      case ROLLBACK_PHASE_PREPARING -> "preparing (snapshot " + r.getSnapshotId() + ")";
      case ROLLBACK_PHASE_RUNNING ->
          "in progress (snapshot "
              + r.getSnapshotId()
              + ", epoch "
              + r.getEpoch()
              + "; waiting for "
              + r.getDetail()
              + ")";
      case ROLLBACK_PHASE_FAILED ->
          "failed ("
              + r.getDetail()
              + "); workers stay halted until "
              + "'cutpoint rollback ID' succeeds or 'cutpoint rollback --cancel'";
      case ROLLBACK_PHASE_NONE, UNRECOGNIZED -> "no";
    };
  }

  private static String schedule(ScheduleView s) {
    String every =
        s.getIntervalMs() == 0
            ? "on demand only"
            : "every " + Human.micros(s.getIntervalMs() * 1000);
    return s.getPaused() ? "paused (" + every + " when resumed)" : every;
  }

  /** The cluster view as text; {@code nowMs} is used for heartbeat ages. */
  public static String render(ClusterView c, long nowMs) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("%-18s %d%n", "epoch:", c.getEpoch()));
    b.append(
        String.format(
            "%-18s %s%n",
            "latest complete:",
            c.getLatestCompleteSnapshot() == 0
                ? "none"
                : "snapshot " + c.getLatestCompleteSnapshot()));
    b.append(
        String.format(
            "%-18s %s%n",
            "pending:",
            c.getPendingSnapshotsCount() == 0
                ? "none"
                : c.getPendingSnapshotsList().stream()
                    .map(String::valueOf)
                    .collect(Collectors.joining(", "))));
    b.append(String.format("%-18s %s%n", "rollback:", rollback(c.getRollback())));
    b.append(String.format("%-18s %s%n", "schedule:", schedule(c.getSchedule())));
    if (c.hasSnapshotsBlocked()) {
      b.append(
          String.format(
              "%-18s %s%n",
              "snapshots:",
              "blocked ("
                  + Human.enumName(c.getSnapshotsBlocked().getReason(), "SNAPSHOTS_BLOCKED_REASON_")
                  + "): "
                  + c.getSnapshotsBlocked().getMessage()));
    }
    b.append(String.format("%-18s %s%n", "initiators:", String.join(", ", c.getInitiatorsList())));
    b.append(String.format("%-18s %d%n", "channels:", c.getChannelsCount()));
    if (c.getWorkersCount() == 0) {
      b.append("\nno workers\n");
      return b.toString();
    }
    b.append('\n');
    Table t =
        new Table(
            "WORKER", "STATE", "ADDRESS", "SENDS TO", "RECEIVES FROM", "HEARTBEAT", "LOCAL COPY");
    for (WorkerView w : c.getWorkersList()) {
      t.row(
          w.getDecl().getWorkerId(),
          Human.enumName(w.getState(), "WORKER_STATE_"),
          w.getDecl().getChannelAddress(),
          String.join(",", w.getDecl().getOutgoingList()),
          String.join(",", w.getDecl().getIncomingList()),
          Human.ago(w.getLastHeartbeatUnixMs(), nowMs),
          w.getLocalCopySnapshotId() == 0 ? "-" : "snapshot " + w.getLocalCopySnapshotId());
    }
    b.append(t.render());
    return b.toString();
  }
}
