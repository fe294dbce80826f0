package io.cutpoint.ops.admin;

import picocli.CommandLine.Command;

@Command(
    name = "unpin",
    mixinStandardHelpOptions = true,
    description = "Unpin a snapshot: retention may delete it again.")
public final class UnpinCommand extends PinCommand {
  @Override
  protected boolean pinned() {
    return false;
  }
}
