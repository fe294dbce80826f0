package io.cutpoint.ops.demo.deadlock;

import ch.qos.logback.classic.Level;
import io.cutpoint.util.Durations;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The {@code --scenario} flag of {@code cutpoint demo} and the flags of the deadlock scenario, as a
 * picocli mixin. The demo command asks {@link #runIfSelected} first; it runs the deadlock demo when
 * chosen (sharing the command's {@code --seed}, {@code --interval}, {@code --duration}, {@code
 * --json} and {@code --verbose}) and returns null for the bank scenario.
 */
public final class DeadlockScenario {

  /** The demos there are. */
  public enum Scenario {
    BANK,
    DEADLOCK
  }

  /**
   * Thinking and eating take up to this long; a philosopher reaches for its second fork after the
   * grab delay.
   */
  static final Philosopher.Timing TIMING = new Philosopher.Timing(40, 10, 2, false);

  private static final List<String> BANK_ONLY =
      List.of(
          "--workers",
          "--topology",
          "--crash-every",
          "--rate",
          "--balance",
          "--connect",
          "--data-dir");
  private static final List<String> DEADLOCK_ONLY =
      List.of("--philosophers", "--fatal-chance", "--meals");

  @Option(
      names = "--scenario",
      paramLabel = "NAME",
      defaultValue = "bank",
      description =
          "bank: money transfers, conservation and rollback; deadlock: dining philosophers whose "
              + "snapshots are analysed for deadlock and termination (default: ${DEFAULT-VALUE}).")
  Scenario scenario;

  @Option(
      names = "--philosophers",
      paramLabel = "N",
      defaultValue = "5",
      description = "Deadlock scenario: philosophers at the table (default: ${DEFAULT-VALUE}).")
  int philosophers;

  @Option(
      names = "--fatal-chance",
      paramLabel = "P",
      defaultValue = "0.5",
      description =
          "Deadlock scenario: chance (0..1), per meal, that the last philosopher also takes its "
              + "left fork first (everybody left first can deadlock); otherwise it takes the lower-numbered "
              + "fork first, a global order that cannot (default: ${DEFAULT-VALUE}).")
  double fatalChance;

  @Option(
      names = "--meals",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Deadlock scenario: meals each philosopher eats before it is done; the run stops when a "
              + "snapshot shows termination (0 = no limit; default: ${DEFAULT-VALUE}).")
  long meals;

  /** Runs the deadlock demo if {@code --scenario deadlock} was given; null for the bank demo. */
  public Integer runIfSelected(CommandSpec spec) throws InterruptedException {
    ParseResult parsed = spec.commandLine().getParseResult();
    List<String> foreign = scenario == Scenario.DEADLOCK ? BANK_ONLY : DEADLOCK_ONLY;
    for (String flag : foreign) {
      if (parsed.hasMatchedOption(flag)) {
        throw new ParameterException(
            spec.commandLine(),
            flag
                + " does not apply to --scenario "
                + scenario.name().toLowerCase(java.util.Locale.ROOT));
      }
    }
    if (scenario != Scenario.DEADLOCK) {
      return null;
    }
    DeadlockDemo.Settings settings;
    try {
      DiningTable.Options table =
          new DiningTable.Options(
              philosophers,
              fatalChance,
              meals == 0 ? Philosopher.UNLIMITED : meals,
              TIMING,
              spec.findOption("--seed").getValue());
      settings =
          new DeadlockDemo.Settings(
              table, duration(spec, "--interval"), duration(spec, "--duration"));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    if (!Boolean.TRUE.equals(spec.findOption("--verbose").getValue())) {
      Logger root = LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
      if (root instanceof ch.qos.logback.classic.Logger logback) {
        logback.setLevel(Level.ERROR);
      }
    }
    boolean json = Boolean.TRUE.equals(spec.findOption("--json").getValue());
    return new DeadlockDemo(settings, spec.commandLine().getOut(), json).run();
  }

  private static Duration duration(CommandSpec spec, String flag) {
    String text = spec.findOption(flag).getValue();
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "bad " + flag + ": " + e.getMessage());
    }
  }
}
