package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.PinSnapshotRequest;
import io.cutpoint.api.v1.PinSnapshotResponse;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "pin",
    mixinStandardHelpOptions = true,
    description = "Pin a snapshot: retention never deletes it.")
public class PinCommand extends AdminCommand {

  @Parameters(
      paramLabel = "ID",
      converter = SnapshotIdConverter.class,
      description = "The snapshot.")
  long id;

  /** True to pin, false to unpin. */
  protected boolean pinned() {
    return true;
  }

  @Override
  protected String subject() {
    return "snapshot " + id;
  }

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    PinSnapshotResponse r =
        client
            .stub()
            .pinSnapshot(
                PinSnapshotRequest.newBuilder().setSnapshotId(id).setPinned(pinned()).build());
    if (json()) {
      out.println(Json.pretty(r));
    } else {
      out.println("snapshot " + id + (r.getManifest().getPinned() ? " pinned" : " unpinned"));
    }
    return ExitCodes.OK;
  }
}
