package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.RemoveWorkerRequest;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = "Manage the workers the coordinator knows.",
    subcommands = WorkerCommand.Remove.class)
public final class WorkerCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "missing subcommand (try 'cutpoint worker --help')");
  }

  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = {
        "Forget a lost worker (a planned scale-down, a worker that will not come back): "
            + "it leaves the topology, the worker counts and the cluster view.",
        "Refused for a worker with a live session and while a rollback needs it."
      })
  static final class Remove extends AdminCommand {

    @Parameters(paramLabel = "ID", description = "The worker's id.")
    String id;

    @Override
    protected String subject() {
      return "worker " + id;
    }

    @Override
    protected int run(AdminClient client, PrintWriter out) {
      client.stub().removeWorker(RemoveWorkerRequest.newBuilder().setWorkerId(id).build());
      if (json()) {
        out.println(Json.object().put("worker_id", id).put("removed", true));
      } else {
        out.println("worker " + id + " removed");
      }
      return ExitCodes.OK;
    }
  }
}
