package io.cutpoint.ops;

/** Exit codes of the {@code cutpoint} command. */
public final class ExitCodes {
  /** Everything worked (for {@code demo}: no snapshot violated conservation). */
  public static final int OK = 0;

  /** An operation failed: the coordinator refused or could not be reached, a snapshot failed. */
  public static final int FAILED = 1;

  /** Bad usage: unknown flag, bad value, bad id. */
  public static final int USAGE = 2;

  /** Stopped by Ctrl-C (SIGINT) before it finished (128 + 2, as shells report it). */
  public static final int INTERRUPTED = 130;

  private ExitCodes() {}
}
