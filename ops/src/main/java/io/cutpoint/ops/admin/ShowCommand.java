package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ChannelRef;
import io.cutpoint.api.v1.GetChannelStateRequest;
import io.cutpoint.api.v1.GetChannelStateResponse;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.RecordedMessage;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import io.cutpoint.ops.format.Table;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

@Command(
    name = "show",
    mixinStandardHelpOptions = true,
    description = {
      "Show a snapshot: its manifest, per-worker pieces, and its channels.",
      "Without --channel every channel is summarised; with --channel its recorded messages are listed;"
          + " with --trace, where its time went."
    })
public final class ShowCommand extends AdminCommand {

  @Parameters(
      paramLabel = "ID",
      converter = SnapshotIdConverter.class,
      description = "The snapshot.")
  long id;

  @Option(
      names = "--channel",
      paramLabel = "FROM->TO",
      description = "List the messages recorded in transit on this channel.")
  String channel;

  @Option(
      names = "--trace",
      description =
          "Show where the snapshot's time went: each worker's steps and the critical path, in ms"
              + " from the start commands on the coordinator's clock.")
  boolean trace;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description = "With --channel: list at most N messages (default: ${DEFAULT-VALUE}).")
  int limit;

  @Override
  protected String subject() {
    return "snapshot " + id;
  }

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    ChannelRef only = channel == null ? null : parseChannel(channel);
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
    }
    if (trace && only != null) {
      throw new ParameterException(spec.commandLine(), "--trace and --channel do not go together");
    }
    AdminGrpc.AdminBlockingStub stub = client.stub();
    SnapshotManifest m =
        stub.getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build()).getManifest();
    boolean stored = m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE;
    if (trace) {
      showTrace(m, out);
      return ExitCodes.OK;
    }
    if (only != null) {
      showChannel(stub, m, only, out);
      return ExitCodes.OK;
    }
    List<ChannelRef> channels = channelsOf(m);
    List<Long> counts = new ArrayList<>();
    for (ChannelRef c : channels) {
      counts.add(
          stored
              ? stub.getChannelState(
                      GetChannelStateRequest.newBuilder()
                          .setSnapshotId(id)
                          .setChannel(c)
                          .setPageSize(1)
                          .build())
                  .getTotalMessages()
              : 0L);
    }
    if (json()) {
      List<Object> list = new ArrayList<>();
      for (int i = 0; i < channels.size(); i++) {
        list.add(
            Json.object()
                .put("from", channels.get(i).getFrom())
                .put("to", channels.get(i).getTo())
                .put("messages", counts.get(i)));
      }
      out.println(Json.object().put("manifest", Json.tree(m)).put("channels", list));
      return ExitCodes.OK;
    }
    out.print(SnapshotViews.details(m));
    if (!channels.isEmpty() && stored) {
      out.println();
      out.println(
          "Channels (messages recorded in transit; 'cutpoint show "
              + id
              + " --channel FROM->TO' lists them):");
      Table t = new Table("CHANNEL", ">MESSAGES");
      for (int i = 0; i < channels.size(); i++) {
        t.row(channels.get(i).getFrom() + "->" + channels.get(i).getTo(), counts.get(i));
      }
      StringBuilder b = new StringBuilder();
      SnapshotViews.indent(b, t.render());
      out.print(b);
    }
    return ExitCodes.OK;
  }

  private void showChannel(
      AdminGrpc.AdminBlockingStub stub, SnapshotManifest m, ChannelRef c, PrintWriter out) {
    if (!channelsOf(m).contains(c)) {
      throw new ParameterException(
          spec.commandLine(),
          "snapshot " + id + " has no channel " + c.getFrom() + "->" + c.getTo());
    }
    List<RecordedMessage> messages = new ArrayList<>();
    long total = 0;
    String token = "";
    do {
      GetChannelStateResponse page =
          stub.getChannelState(
              GetChannelStateRequest.newBuilder()
                  .setSnapshotId(id)
                  .setChannel(c)
                  .setPageToken(token)
                  .setPageSize(Math.min(10_000, limit - messages.size()))
                  .build());
      total = page.getTotalMessages();
      for (RecordedMessage r : page.getMessagesList()) {
        if (messages.size() < limit) {
          messages.add(r);
        }
      }
      token = page.getNextPageToken();
    } while (!token.isEmpty() && messages.size() < limit);
    if (json()) {
      List<Object> list = new ArrayList<>();
      for (RecordedMessage r : messages) {
        list.add(
            Json.object()
                .id("seq", r.getSeq())
                .put(
                    "payload_base64",
                    Base64.getEncoder().encodeToString(r.getPayload().toByteArray())));
      }
      out.println(
          Json.object()
              .id("snapshot_id", id)
              .put("from", c.getFrom())
              .put("to", c.getTo())
              .put("total_messages", total)
              .put("messages", list));
      return;
    }
    out.println(
        "snapshot "
            + id
            + ", channel "
            + c.getFrom()
            + "->"
            + c.getTo()
            + ": "
            + total
            + " message"
            + (total == 1 ? "" : "s")
            + " recorded in transit"
            + (total > messages.size() ? " (showing " + messages.size() + ")" : ""));
    if (!messages.isEmpty()) {
      Table t = new Table(">SEQ", ">SIZE", "PAYLOAD");
      for (RecordedMessage r : messages) {
        t.row(r.getSeq(), r.getPayload().size(), Human.payload(r.getPayload().toByteArray(), 64));
      }
      out.print(t.render());
    }
  }

  private void showTrace(SnapshotManifest m, PrintWriter out) {
    SnapshotTrace t =
        SnapshotTrace.of(m)
            .orElseThrow(
                () ->
                    CliFailure.failed(
                        "snapshot "
                            + id
                            + " has no trace: it has no piece, or its pieces were stored by a"
                            + " coordinator older than the trace"));
    if (json()) {
      List<Object> workers = new ArrayList<>();
      for (SnapshotTrace.Worker w : t.workers()) {
        workers.add(
            Json.object()
                .put("worker_id", w.id())
                .put("began_ms", w.began())
                .put("captured_ms", w.captured())
                .put("closed_ms", closed(w))
                .put("completed_ms", w.completed())
                .put("chunking_began_ms", w.chunks() == null ? null : w.chunks().began())
                .put("chunked_ms", w.chunks() == null ? null : w.chunks().chunked())
                .put("chunks_found_ms", w.chunks() == null ? null : w.chunks().found())
                .put("header_received_ms", w.headerReceived())
                .put("delivered_ms", w.delivered()));
      }
      Json.Obj path = Json.object();
      t.criticalPath().forEach(path::put);
      Json.Obj toUpload = Json.object();
      t.toUpload().forEach(toUpload::put);
      out.println(
          Json.object()
              .id("snapshot_id", id)
              .put("end_ms", t.endMillis())
              .put("workers", workers)
              .put("critical_path_worker", t.last().id())
              .put("critical_path_ms", path)
              .put("to_upload_ms", t.toUpload().isEmpty() ? null : toUpload));
      return;
    }
    out.println(SnapshotTraceView.render(id, m.getStatus(), t));
  }

  private static Json.Obj closed(SnapshotTrace.Worker w) {
    Json.Obj o = Json.object();
    w.closed().forEach(o::put);
    return o;
  }

  static List<ChannelRef> channelsOf(SnapshotManifest m) {
    List<ChannelRef> list = new ArrayList<>();
    for (WorkerDecl w : m.getTopology().getWorkersList()) {
      for (String to : w.getOutgoingList()) {
        list.add(ChannelRef.newBuilder().setFrom(w.getWorkerId()).setTo(to).build());
      }
    }
    list.sort(
        (a, b) ->
            a.getFrom().equals(b.getFrom())
                ? a.getTo().compareTo(b.getTo())
                : a.getFrom().compareTo(b.getFrom()));
    return list;
  }

  private ChannelRef parseChannel(String text) {
    int arrow = text.indexOf("->");
    if (arrow <= 0 || arrow + 2 >= text.length()) {
      throw new ParameterException(
          spec.commandLine(),
          "--channel must be FROM->TO (e.g. bank-1->bank-2), got '" + text + "'");
    }
    return ChannelRef.newBuilder()
        .setFrom(text.substring(0, arrow).trim())
        .setTo(text.substring(arrow + 2).trim())
        .build();
  }
}
