package io.cutpoint.ops.admin;

import io.cutpoint.api.StatusText;
import io.cutpoint.api.v1.Event;
import io.cutpoint.api.v1.WatchEventsRequest;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.util.Iterator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    description =
        "Print the coordinator's events as they happen, until Ctrl-C (--json: one object per line).")
public final class WatchCommand extends AdminCommand {

  @Option(
      names = "--count",
      paramLabel = "N",
      description = "Stop after N events (default: run until Ctrl-C or the coordinator stops).")
  long count;

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    if (count < 0) {
      throw CliFailure.usage("--count must be at least 1 (or left out), got " + count);
    }
    Iterator<Event> events =
        client.stubWithoutDeadline().watchEvents(WatchEventsRequest.getDefaultInstance());
    long seen = 0;
    try {
      while (events.hasNext()) {
        Event e = events.next();
        out.println(json() ? Json.line(e) : render(e));
        out.flush();
        if (count > 0 && ++seen >= count) {
          return ExitCodes.OK;
        }
      }
    } catch (StatusRuntimeException e) {
      if (seen == 0 && (e.getStatus().getCode() != Status.Code.UNAVAILABLE || refused(e))) {
        throw e; // not reached, or refused (a token, a permission): said as every command says it
      }
      throw CliFailure.failed(
          "the coordinator at "
              + target()
              + " went away ("
              + StatusText.of(e.getStatus())
              + ")"
              + tlsHint(e));
    }
    throw CliFailure.failed(
        "the coordinator at " + target() + " went away (it ended the event stream)");
  }

  private static boolean refused(StatusRuntimeException e) {
    String d = GrpcErrors.describe(e, "", "");
    return d.endsWith("connection refused")
        || d.endsWith("unknown host")
        || d.endsWith("no route to host");
  }

  /** One event as a line: time, type, then what it concerns. */
  public static String render(Event e) {
    StringBuilder b =
        new StringBuilder(Human.clock(e.getAtUnixMs()))
            .append("  ")
            .append(String.format("%-20s", Human.enumName(e.getType(), "EVENT_TYPE_")));
    if (e.getSnapshotId() != 0) {
      b.append(" snapshot=").append(e.getSnapshotId());
    }
    if (!e.getWorkerId().isEmpty()) {
      b.append(" worker=").append(e.getWorkerId());
    }
    b.append(" epoch=").append(e.getEpoch());
    if (e.getDurationMicros() != 0) {
      b.append(" took=").append(Human.micros(e.getDurationMicros()));
    }
    if (!e.getMessage().isEmpty()) {
      b.append("  ").append(e.getMessage());
    }
    return b.toString();
  }
}
