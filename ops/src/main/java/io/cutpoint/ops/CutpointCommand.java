package io.cutpoint.ops;

import io.cutpoint.ops.admin.AnalyzeCommand;
import io.cutpoint.ops.admin.ClusterCommand;
import io.cutpoint.ops.admin.DeleteCommand;
import io.cutpoint.ops.admin.GrpcErrors;
import io.cutpoint.ops.admin.ListCommand;
import io.cutpoint.ops.admin.PinCommand;
import io.cutpoint.ops.admin.RollbackCommand;
import io.cutpoint.ops.admin.ScheduleCommand;
import io.cutpoint.ops.admin.ShowCommand;
import io.cutpoint.ops.admin.SnapshotCommand;
import io.cutpoint.ops.admin.UnpinCommand;
import io.cutpoint.ops.admin.WatchCommand;
import io.cutpoint.ops.admin.WorkerCommand;
import io.cutpoint.ops.config.ConfigException;
import io.cutpoint.ops.demo.DemoCommand;
import io.cutpoint.ops.play.PlaygroundCommand;
import io.cutpoint.ops.server.ServerCommand;
import io.cutpoint.ops.store.StoreCommand;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code cutpoint} command: runs a coordinator ({@code server}), administers one ({@code
 * snapshot}, {@code list}, {@code show}, ...), and runs the bank-transfer {@code demo}.
 *
 * <p>Exit codes: 0 success, 1 a failed operation, 2 bad usage. Every error is one line on stderr.
 */
@Command(
    name = "cutpoint",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Checkpoint and recovery for message-passing systems: Chandy-Lamport snapshots, "
            + "verified and stored in RocksDB, with rollback and channel replay.",
    subcommands = {
      ServerCommand.class,
      SnapshotCommand.class,
      ListCommand.class,
      ShowCommand.class,
      RollbackCommand.class,
      DeleteCommand.class,
      PinCommand.class,
      UnpinCommand.class,
      ClusterCommand.class,
      WorkerCommand.class,
      ScheduleCommand.class,
      WatchCommand.class,
      AnalyzeCommand.class,
      StoreCommand.class,
      DemoCommand.class,
      PlaygroundCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {
      "",
      "Exit codes: 0 success, 1 failed operation, 2 bad usage.",
      "Run 'cutpoint COMMAND --help' for a command's flags."
    })
public final class CutpointCommand implements Callable<Integer> {

  /** The benchmark command, registered when the build contains it. */
  static final String BENCH_CLASS = "io.cutpoint.ops.bench.BenchCommand";

  @Spec CommandSpec spec;

  /** {@code cutpoint} alone: the usage, on stderr, as a usage error. */
  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    spec.commandLine().usage(err);
    err.flush();
    return ExitCodes.USAGE;
  }

  /** The command line with Cutpoint's error handling: one line on stderr, exit 2 or 1. */
  public static CommandLine commandLine() {
    CommandLine cmd = new CommandLine(new CutpointCommand());
    ServerCommand.addSettingOptions(cmd.getSubcommands().get("server"), System.getenv());
    addBenchIfPresent(cmd);
    cmd.setParameterExceptionHandler(CutpointCommand::usageError);
    cmd.setExecutionExceptionHandler((e, commandLine, parseResult) -> failure(e, commandLine));
    cmd.setCaseInsensitiveEnumValuesAllowed(true);
    return cmd;
  }

  public static void main(String[] args) {
    Logging.routeJulToSlf4j();
    System.exit(commandLine().execute(args));
  }

  private static void addBenchIfPresent(CommandLine cmd) {
    try {
      Class<?> bench = Class.forName(BENCH_CLASS);
      cmd.addSubcommand(new CommandLine(bench.getDeclaredConstructor().newInstance()));
    } catch (ClassNotFoundException e) {
      // Built without the benchmark command.
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create " + BENCH_CLASS, e);
    }
  }

  private static int usageError(ParameterException e, String[] args) {
    CommandLine where = e.getCommandLine();
    String name = where.getCommandSpec().qualifiedName();
    PrintWriter err = where.getErr();
    if (e.getCause() instanceof ConfigException c) { // a server setting's value, file or default
      return failure(c, where);
    }
    err.println(
        "cutpoint: " + oneLine(e.getMessage()) + suggestions(e) + " (see '" + name + " --help')");
    err.flush();
    return ExitCodes.USAGE;
  }

  /** Picocli's guesses for a mistyped command or flag, e.g. {@code ; did you mean: list?}. */
  static String suggestions(ParameterException e) {
    if (!(e instanceof UnmatchedArgumentException u)) {
      return "";
    }
    List<String> guesses = u.getSuggestions();
    return guesses.isEmpty() ? "" : "; did you mean: " + String.join(", ", guesses) + "?";
  }

  private static int failure(Exception e, CommandLine where) {
    PrintWriter err = where.getErr();
    int code;
    String message;
    if (e instanceof CliFailure f) {
      code = f.exitCode();
      message = f.getMessage();
    } else if (e instanceof ConfigException) {
      code = ExitCodes.USAGE;
      message = e.getMessage();
    } else if (e instanceof InterruptedException) {
      code = ExitCodes.INTERRUPTED;
      message = "interrupted";
    } else if (e instanceof StatusRuntimeException s) {
      code = ExitCodes.FAILED;
      message = GrpcErrors.describe(s, "the coordinator", "");
    } else {
      code = ExitCodes.FAILED;
      message = "internal error: " + e;
      if (System.getenv("CUTPOINT_DEBUG") != null) {
        e.printStackTrace(err);
      }
    }
    err.println("cutpoint: " + oneLine(message));
    err.flush();
    return code;
  }

  static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    return s.replaceAll("\\s*[\\r\\n]+\\s*", "; ").trim();
  }
}
