package io.cutpoint.ops;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the command in-process with captured stdout and stderr. */
public final class Cli {

  /** What a run printed and returned. */
  public record Result(int code, String out, String err) {}

  private Cli() {}

  public static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = CutpointCommand.commandLine();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(args);
    return new Result(code, out.toString(), err.toString());
  }
}
