package io.cutpoint.ops.store;

import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.storage.StoreException;
import io.cutpoint.storage.StoreRepair;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cutpoint store check|repair --data-dir DIR}: offline commands on a coordinator's data
 * directory (the coordinator must be stopped). Exit 0: no damage; 1: damage found (check) or left
 * after the repair, or the store could not be opened; 2: bad usage. {@code cutpoint store copy}
 * ({@link StoreCopyCommand}) copies snapshots between stores.
 */
@Command(
    name = "store",
    mixinStandardHelpOptions = true,
    description = "Offline commands on a stopped coordinator's store.",
    subcommands = {StoreCommand.Check.class, StoreCommand.Repair.class, StoreCopyCommand.class})
public final class StoreCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: check, repair or copy");
  }

  /** What both subcommands share: the directory, and how a report is printed. */
  abstract static class StoreAction implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--data-dir",
        required = true,
        paramLabel = "DIR",
        description = "The coordinator's data directory.")
    Path dataDir;

    @Override
    public Integer call() {
      if (!Files.isDirectory(dataDir) || !Files.exists(dataDir.resolve("CURRENT"))) {
        throw new ParameterException(
            spec.commandLine(), "--data-dir " + dataDir + " holds no snapshot store");
      }
      StoreRepair.Report report;
      try {
        report = run(dataDir);
      } catch (StoreException e) {
        throw CliFailure.failed(e.getMessage());
      }
      PrintWriter out = spec.commandLine().getOut();
      report.lines().forEach(out::println);
      out.println(report.damaged() ? verdictIfDamaged() : "OK: no damage found");
      out.flush();
      return report.damaged() ? ExitCodes.FAILED : ExitCodes.OK;
    }

    abstract StoreRepair.Report run(Path dir);

    abstract String verdictIfDamaged();
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = {
        "Open the store and verify every snapshot (every chunk, batch and checksum).",
        "Exit 0: no damage; 1: damage found; 2: bad usage."
      })
  static final class Check extends StoreAction {
    @Override
    StoreRepair.Report run(Path dir) {
      return StoreRepair.check(dir);
    }

    @Override
    String verdictIfDamaged() {
      return "DAMAGED: as above (a DAMAGED snapshot cannot be restored); 'cutpoint store repair'"
          + " rebuilds the store from what reads";
    }
  }

  @Command(
      name = "repair",
      mixinStandardHelpOptions = true,
      description = {
        "Rebuild the store from every value that still reads (the damaged directory"
            + " is kept beside it as DIR.damaged-TIME), then verify every snapshot.",
        "Exit 0: repaired, no damage left; 1: damaged snapshots remain or the repair failed;"
            + " 2: bad usage."
      })
  static final class Repair extends StoreAction {
    @Override
    StoreRepair.Report run(Path dir) {
      return StoreRepair.repair(dir, Clock.systemUTC());
    }

    @Override
    String verdictIfDamaged() {
      return "REPAIRED WITH LOSSES: the snapshots above stay damaged (delete them with"
          + " 'cutpoint delete' once the coordinator runs); every other one verifies";
    }
  }
}
