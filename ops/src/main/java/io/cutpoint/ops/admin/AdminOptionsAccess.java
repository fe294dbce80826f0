package io.cutpoint.ops.admin;

import picocli.CommandLine.Model.CommandSpec;

/** Lets other commands check a {@code HOST:PORT} the way the admin commands do. */
public final class AdminOptionsAccess {
  private AdminOptionsAccess() {}

  /** The trimmed target; a usage error when it is not HOST:PORT. */
  public static String checkTarget(CommandSpec spec, String target) {
    return AdminOptions.checkTarget(spec, target);
  }
}
