package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.AbortSnapshotRequest;
import io.cutpoint.api.v1.AbortSnapshotResponse;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "snapshot",
    mixinStandardHelpOptions = true,
    description = {
      "Start a snapshot now. With --wait, wait for its outcome and exit 1 unless it completes.",
      "With --abort ID, abort that pending snapshot instead."
    })
public final class SnapshotCommand extends AdminCommand {

  @Option(names = "--wait", description = "Wait until the snapshot is complete, aborted or failed.")
  boolean wait;

  @Option(
      names = "--wait-timeout",
      paramLabel = "DURATION",
      description =
          "With --wait: stop waiting after this long (default: the coordinator's snapshot timeout).")
  String waitTimeout;

  @Option(
      names = "--abort",
      paramLabel = "ID",
      converter = SnapshotIdConverter.class,
      description = "Abort this pending snapshot instead of starting one.")
  Long abort;

  @Override
  protected String subject() {
    return abort == null ? "" : "snapshot " + abort;
  }

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    if (abort != null) {
      if (wait || waitTimeout != null) {
        throw new ParameterException(
            spec.commandLine(), "--abort takes no --wait or --wait-timeout");
      }
      AbortSnapshotResponse r =
          client
              .stub()
              .abortSnapshot(AbortSnapshotRequest.newBuilder().setSnapshotId(abort).build());
      out.println(json() ? Json.pretty(r) : "snapshot " + abort + " aborted");
      return ExitCodes.OK;
    }
    Waiting waiting = Waiting.of(spec.commandLine(), wait, waitTimeout);
    TriggerSnapshotResponse r =
        waiting
            .stub(client)
            .triggerSnapshot(
                TriggerSnapshotRequest.newBuilder()
                    .setWait(wait)
                    .setWaitTimeoutMs(waiting.timeoutMillis())
                    .build());
    if (json()) {
      out.println(Json.pretty(r));
    } else if (!wait) {
      out.println("snapshot " + r.getSnapshotId() + " started");
    } else {
      out.println(SnapshotViews.summaryLine(r.getManifest()));
    }
    out.flush();
    if (wait && r.getManifest().getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      String reason = r.getManifest().getReason();
      throw CliFailure.failed(
          "snapshot "
              + r.getSnapshotId()
              + " "
              + SnapshotViews.status(r.getManifest().getStatus())
              + (reason.isEmpty() ? "" : ": " + reason));
    }
    return ExitCodes.OK;
  }
}
