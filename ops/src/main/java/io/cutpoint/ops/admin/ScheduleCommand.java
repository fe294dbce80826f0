package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.SetScheduleRequest;
import io.cutpoint.api.v1.SetScheduleResponse;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "schedule",
    mixinStandardHelpOptions = true,
    description =
        "Pause or resume the periodic snapshots ('cutpoint snapshot' still works while paused).",
    subcommands = {ScheduleCommand.Pause.class, ScheduleCommand.Resume.class})
public final class ScheduleCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing subcommand: pause or resume");
  }

  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description = "Pause the periodic snapshots.")
  static class Pause extends AdminCommand {

    boolean paused() {
      return true;
    }

    @Override
    protected int run(AdminClient client, PrintWriter out) {
      SetScheduleResponse r =
          client.stub().setSchedule(SetScheduleRequest.newBuilder().setPaused(paused()).build());
      out.println(
          json()
              ? Json.pretty(r)
              : "periodic snapshots " + (r.getSchedule().getPaused() ? "paused" : "resumed"));
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = "Resume the periodic snapshots.")
  static final class Resume extends Pause {
    @Override
    boolean paused() {
      return false;
    }
  }
}
