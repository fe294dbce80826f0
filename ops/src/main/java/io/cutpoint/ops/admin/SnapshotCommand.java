package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.config.Values;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(name = "snapshot", mixinStandardHelpOptions = true,
    description = "Start a snapshot now. With --wait, wait for its outcome and exit 1 unless it completes.")
public final class SnapshotCommand extends AdminCommand {

  @Option(names = "--wait", description = "Wait until the snapshot is complete, aborted or failed.")
  boolean wait;

  @Option(names = "--wait-timeout", paramLabel = "DURATION",
      description = "With --wait: stop waiting after this long (default: the coordinator's snapshot timeout).")
  String waitTimeout;

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    Duration waitFor = Duration.ZERO;
    if (waitTimeout != null) {
      try {
        waitFor = Values.duration(waitTimeout);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "bad --wait-timeout: " + e.getMessage());
      }
    }
    AdminGrpc.AdminBlockingStub stub = !wait ? client.stub()
        : waitFor.isZero() ? client.stubWithoutDeadline() : client.stub(waitFor.plusSeconds(10));
    TriggerSnapshotResponse r = stub.triggerSnapshot(TriggerSnapshotRequest.newBuilder()
        .setWait(wait).setWaitTimeoutMs((int) Math.min(Integer.MAX_VALUE, waitFor.toMillis())).build());
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
      throw CliFailure.failed("snapshot " + r.getSnapshotId() + " "
          + SnapshotViews.status(r.getManifest().getStatus())
          + (reason.isEmpty() ? "" : ": " + reason));
    }
    return ExitCodes.OK;
  }
}
