package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.CancelRollbackRequest;
import io.cutpoint.api.v1.CancelRollbackResponse;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.RollbackPhase;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.RollbackView;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

@Command(
    name = "rollback",
    mixinStandardHelpOptions = true,
    description = {
      "Roll the whole system back to a complete snapshot: every worker restores its "
          + "recorded state and the recorded in-flight messages are replayed.",
      "With --wait, wait until every worker has resumed (printing the workers it still waits for) "
          + "and exit 1 if that does not happen.",
      "With --cancel, give up the running or failed rollback: the halted workers resume with the "
          + "state they hold, without a restore."
    })
public final class RollbackCommand extends AdminCommand {

  /** How often {@code --wait} asks which workers the rollback still waits for. */
  static final long PROGRESS_MS = 500;

  @Parameters(
      paramLabel = "ID",
      arity = "0..1",
      converter = SnapshotIdConverter.class,
      description = "The complete snapshot to roll back to.")
  Long id;

  @Option(names = "--wait", description = "Wait until every worker has resumed.")
  boolean wait;

  @Option(
      names = "--wait-timeout",
      paramLabel = "DURATION",
      description =
          "With --wait: stop waiting after this long (default: the coordinator's rollback deadline).")
  String waitTimeout;

  @Option(names = "--cancel", description = "Cancel the running or failed rollback instead.")
  boolean cancel;

  @Override
  protected String subject() {
    return id == null ? "" : "snapshot " + id;
  }

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    if (cancel == (id != null)) {
      throw new ParameterException(
          spec.commandLine(),
          cancel ? "--cancel takes no snapshot ID" : "missing snapshot ID (or --cancel)");
    }
    if (cancel) {
      if (wait || waitTimeout != null) {
        throw new ParameterException(
            spec.commandLine(), "--cancel answers at once: --wait and --wait-timeout do not apply");
      }
      return cancel(client, out);
    }
    Waiting waiting = Waiting.of(spec.commandLine(), wait, waitTimeout);
    RollbackRequest request =
        RollbackRequest.newBuilder()
            .setSnapshotId(id)
            .setWait(wait)
            .setWaitTimeoutMs(waiting.timeoutMillis())
            .build();
    RollbackResponse r =
        wait && !json()
            ? withProgress(client, waiting, request, out)
            : waiting.stub(client).rollback(request);
    if (json()) {
      out.println(Json.pretty(r));
    } else if (!wait) {
      out.println(
          "rollback to snapshot " + r.getSnapshotId() + " started (epoch " + r.getEpoch() + ")");
    } else if (r.getCompleted()) {
      out.println(
          "rolled back to snapshot "
              + r.getSnapshotId()
              + " in "
              + Human.micros(r.getDurationMicros())
              + " (epoch "
              + r.getEpoch()
              + ")");
    }
    out.flush();
    if (wait && !r.getCompleted()) {
      throw CliFailure.failed(
          "rollback to snapshot "
              + r.getSnapshotId()
              + " did not complete in time (epoch "
              + r.getEpoch()
              + "); "
              + waitingFor(client));
    }
    if (r.getSnapshotId() != id && !json()) {
      out.println(
          "note: snapshot "
              + id
              + " failed its checks; rolled back to snapshot "
              + r.getSnapshotId()
              + " instead");
    }
    return ExitCodes.OK;
  }

  private int cancel(AdminClient client, PrintWriter out) {
    CancelRollbackResponse r =
        client.stub().cancelRollback(CancelRollbackRequest.getDefaultInstance());
    if (json()) {
      out.println(Json.pretty(r));
    } else {
      out.println(
          "rollback to snapshot "
              + r.getSnapshotId()
              + " cancelled (epoch "
              + r.getEpoch()
              + "); resumed without a restore: "
              + (r.getResumedUnrestoredCount() == 0
                  ? "none"
                  : String.join(", ", r.getResumedUnrestoredList()))
              + (r.getResumedAfterRestoreCount() == 0
                  ? ""
                  : "; resumed once their restore under way ends: "
                      + String.join(", ", r.getResumedAfterRestoreList())));
    }
    return ExitCodes.OK;
  }

  /**
   * Runs the waiting call and meanwhile prints a line each time the set of workers the rollback
   * waits for changes.
   */
  private static RollbackResponse withProgress(
      AdminClient client, Waiting waiting, RollbackRequest request, PrintWriter out) {
    CompletableFuture<RollbackResponse> call =
        CompletableFuture.supplyAsync(
            () -> waiting.stub(client).rollback(request),
            command -> {
              Thread t = new Thread(command, "cutpoint-rollback-wait");
              t.setDaemon(true);
              t.start();
            });
    String last = "";
    while (true) {
      try {
        return call.get(PROGRESS_MS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        RollbackView v =
            client
                .stub()
                .getCluster(GetClusterRequest.newBuilder().setPageSize(1).build())
                .getRollback();
        if (v.getPhase() == RollbackPhase.ROLLBACK_PHASE_RUNNING && !v.getDetail().equals(last)) {
          last = v.getDetail();
          out.println(
              "waiting for "
                  + (v.getWaitingForCount() == 0
                      ? "nothing"
                      : String.join(", ", v.getWaitingForList()))
                  + ": "
                  + v.getDetail());
          out.flush();
        }
      } catch (ExecutionException e) {
        throw e.getCause() instanceof RuntimeException re
            ? re
            : new CompletionException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw CliFailure.failed("interrupted while waiting for the rollback");
      }
    }
  }

  private static String waitingFor(AdminClient client) {
    RollbackView v =
        client
            .stub()
            .getCluster(GetClusterRequest.newBuilder().setPageSize(1).build())
            .getRollback();
    return "rollback: " + ClusterCommand.rollback(v);
  }
}
