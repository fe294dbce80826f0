package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.ListSnapshotsResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = "List snapshots, newest first.")
public final class ListCommand extends AdminCommand {

  @Option(
      names = "--status",
      split = ",",
      paramLabel = "STATUS",
      description = "Only these statuses: pending, complete, aborted, failed (comma-separated).")
  List<String> statuses = new ArrayList<>();

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "20",
      description = "Show at most N snapshots (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--pinned", description = "Only pinned snapshots.")
  boolean pinnedOnly;

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
    }
    ListSnapshotsRequest.Builder req = ListSnapshotsRequest.newBuilder().setPinnedOnly(pinnedOnly);
    for (String s : statuses) {
      req.addStatuses(parseStatus(s));
    }
    List<SnapshotManifest> found = new ArrayList<>();
    String token = "";
    do {
      ListSnapshotsResponse page =
          client
              .stub()
              .listSnapshots(
                  req.setPageToken(token)
                      .setPageSize(Math.min(1000, limit - found.size()))
                      .build());
      for (SnapshotManifest m : page.getSnapshotsList()) {
        if (found.size() < limit) {
          found.add(m);
        }
      }
      token = page.getNextPageToken();
    } while (!token.isEmpty() && found.size() < limit);
    if (json()) {
      out.println(
          Json.pretty(
              ListSnapshotsResponse.newBuilder()
                  .addAllSnapshots(found)
                  .setNextPageToken(token)
                  .build()));
    } else if (found.isEmpty()) {
      out.println("no snapshots");
    } else {
      out.print(SnapshotViews.listTable(found).render());
    }
    return ExitCodes.OK;
  }

  private SnapshotStatus parseStatus(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    for (SnapshotStatus s : SnapshotStatus.values()) {
      if (s != SnapshotStatus.SNAPSHOT_STATUS_UNSPECIFIED
          && s != SnapshotStatus.UNRECOGNIZED
          && (s.name().equals(t) || s.name().equals("SNAPSHOT_STATUS_" + t))) {
        return s;
      }
    }
    throw new ParameterException(
        spec.commandLine(),
        "unknown --status '" + text + "' (use pending, complete, aborted or failed)");
  }
}
