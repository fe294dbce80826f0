package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.DeleteSnapshotRequest;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.format.Json;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "delete",
    mixinStandardHelpOptions = true,
    description = "Delete a snapshot (not a pinned one, nor one a rollback is using).")
public final class DeleteCommand extends AdminCommand {

  @Parameters(
      paramLabel = "ID",
      converter = SnapshotIdConverter.class,
      description = "The snapshot.")
  long id;

  @Override
  protected String subject() {
    return "snapshot " + id;
  }

  @Override
  protected int run(AdminClient client, PrintWriter out) {
    client.stub().deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(id).build());
    if (json()) {
      out.println(Json.object().id("snapshot_id", id).put("deleted", true));
    } else {
      out.println("snapshot " + id + " deleted");
    }
    return ExitCodes.OK;
  }
}
