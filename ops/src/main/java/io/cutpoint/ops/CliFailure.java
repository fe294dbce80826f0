package io.cutpoint.ops;

/**
 * An operation that failed in a way the user should read about: the message is printed as one line
 * {@code cutpoint: <message>} on stderr and the command exits with {@link #exitCode()}.
 */
public final class CliFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  public CliFailure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public static CliFailure failed(String message) {
    return new CliFailure(ExitCodes.FAILED, message);
  }

  public static CliFailure usage(String message) {
    return new CliFailure(ExitCodes.USAGE, message);
  }

  public int exitCode() {
    return exitCode;
  }
}
