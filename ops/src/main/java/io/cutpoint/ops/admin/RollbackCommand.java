package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "rollback", mixinStandardHelpOptions = true,
    description = {"Roll the whole system back to a complete snapshot: every worker restores its "
        + "recorded state and the recorded in-flight messages are replayed.",
        "With --wait, wait until every worker has resumed and exit 1 if that does not happen."})
public final class RollbackCommand extends AdminCommand {

  @Parameters(paramLabel = "ID", converter = SnapshotIdConverter.class,
      description = "The complete snapshot to roll back to.")
  long id;

  @Option(names = "--wait", description = "Wait until every worker has resumed.")
  boolean wait;

  @Option(names = "--wait-timeout", paramLabel = "DURATION",
      description = "With --wait: stop waiting after this long (default: the coordinator's rollback deadline).")
  String waitTimeout;

  @Override
  protected String subject() {
    return "snapshot " + id;
  }

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    Waiting waiting = Waiting.of(spec.commandLine(), wait, waitTimeout);
    RollbackResponse r = waiting.stub(client).rollback(RollbackRequest.newBuilder()
        .setSnapshotId(id).setWait(wait).setWaitTimeoutMs(waiting.timeoutMillis()).build());
    if (json()) {
      out.println(Json.pretty(r));
    } else if (!wait) {
      out.println("rollback to snapshot " + r.getSnapshotId() + " started (epoch " + r.getEpoch() + ")");
    } else if (r.getCompleted()) {
      out.println("rolled back to snapshot " + r.getSnapshotId() + " in "
          + Human.micros(r.getDurationMicros()) + " (epoch " + r.getEpoch() + ")");
    }
    out.flush();
    if (wait && !r.getCompleted()) {
      throw CliFailure.failed("rollback to snapshot " + r.getSnapshotId()
          + " did not complete in time (epoch " + r.getEpoch() + ")");
    }
    if (r.getSnapshotId() != id && !json()) {
      out.println("note: snapshot " + id + " failed its checks; rolled back to snapshot "
          + r.getSnapshotId() + " instead");
    }
    return ExitCodes.OK;
  }
}
