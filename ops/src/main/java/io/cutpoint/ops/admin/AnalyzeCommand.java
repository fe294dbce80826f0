package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.AnalyzeRequest;
import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.ChannelSummary;
import io.cutpoint.api.v1.DeadlockSet;
import io.cutpoint.api.v1.WaitEdge;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import io.cutpoint.ops.format.Table;
import java.io.PrintWriter;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "analyze",
    mixinStandardHelpOptions = true,
    description =
        "Analyse a complete snapshot: deadlock (cycles of the wait-for graph), termination, sizes per channel.")
public final class AnalyzeCommand extends AdminCommand {

  @Parameters(
      paramLabel = "ID",
      converter = SnapshotIdConverter.class,
      description = "A complete snapshot.")
  long id;

  @Override
  protected String subject() {
    return "snapshot " + id;
  }

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    AnalyzeResponse r =
        client.stub().analyze(AnalyzeRequest.newBuilder().setSnapshotId(id).build());
    out.print(json() ? Json.pretty(r) + "\n" : render(r));
    return ExitCodes.OK;
  }

  /** The analysis as text. */
  public static String render(AnalyzeResponse r) {
    StringBuilder b = new StringBuilder();
    b.append("snapshot ")
        .append(r.getSnapshotId())
        .append(": ")
        .append(r.getSummary().getWorkers())
        .append(" workers, ")
        .append(r.getSummary().getChannels())
        .append(" channels, ")
        .append(Human.bytes(r.getSummary().getStateBytes()))
        .append(" state, ")
        .append(Human.bytes(r.getSummary().getChannelBytes()))
        .append(" in flight\n");
    if (r.getDeadlock().getDeadlocked()) {
      b.append("deadlock:    YES, ")
          .append(r.getDeadlock().getSetsCount())
          .append(" deadlocked set(s)\n");
      for (DeadlockSet s : r.getDeadlock().getSetsList()) {
        b.append("  cycle ").append(String.join(" -> ", s.getCycleList()));
        if (s.getCycleCount() > 0) {
          b.append(" -> ").append(s.getCycle(0));
        }
        b.append("  (")
            .append(
                s.getEdgesList().stream()
                    .map(AnalyzeCommand::edge)
                    .collect(Collectors.joining("; ")))
            .append(")\n");
      }
    } else {
      b.append("deadlock:    no\n");
    }
    for (WaitEdge e : r.getDeadlock().getUnblockedByInFlightList()) {
      b.append("  not blocked: ")
          .append(edge(e))
          .append(", a message from ")
          .append(e.getHolder())
          .append(" is in transit\n");
    }
    if (r.getTermination().getTerminated()) {
      b.append("terminated:  YES (every worker passive, every channel empty)\n");
    } else {
      b.append("terminated:  no");
      if (r.getTermination().getActiveWorkersCount() > 0) {
        b.append("; active: ").append(String.join(", ", r.getTermination().getActiveWorkersList()));
      }
      if (r.getTermination().getNonEmptyChannelsCount() > 0) {
        b.append("; non-empty channels: ")
            .append(
                r.getTermination().getNonEmptyChannelsList().stream()
                    .map(AnalyzeCommand::channel)
                    .collect(Collectors.joining(", ")));
      }
      b.append('\n');
    }
    if (r.getSummary().getPerChannelCount() > 0) {
      b.append('\n');
      Table t = new Table("CHANNEL", ">IN-FLIGHT", ">BYTES");
      for (ChannelSummary c : r.getSummary().getPerChannelList()) {
        t.row(channel(c.getChannel()), c.getInFlightMessages(), Human.bytes(c.getInFlightBytes()));
      }
      b.append(t.render());
    }
    return b.toString();
  }

  private static String edge(WaitEdge e) {
    return e.getWaiter()
        + " waits for "
        + e.getHolder()
        + (e.getResource().isEmpty() ? "" : " (" + e.getResource() + ")");
  }

  private static String channel(ChannelRef c) {
    return c.getFrom() + "->" + c.getTo();
  }
}
