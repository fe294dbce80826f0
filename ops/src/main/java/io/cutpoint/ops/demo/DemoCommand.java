package io.cutpoint.ops.demo;

import ch.qos.logback.classic.Level;
import io.cutpoint.util.Durations;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run the bank-transfer demo: workers move money over loopback gRPC channels while "
          + "the coordinator snapshots them; every committed snapshot is checked for conservation "
          + "of money (balances + transfers in flight = the bank's total); workers crash and the "
          + "system rolls back to the newest complete snapshot.",
      "With --ha N, N coordinators of one highly available cluster run in the demo's process "
          + "(on an in-process ZooKeeper and S3 server), the workers follow their leader, and "
          + "--crash-every kills the leader instead of a worker.",
      "Exit code 0 only if nothing was violated."
    })
public final class DemoCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin io.cutpoint.ops.demo.deadlock.DeadlockScenario scenario;

  @Option(
      names = "--workers",
      paramLabel = "N",
      defaultValue = "4",
      description = "Bank workers (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--topology",
      paramLabel = "KIND",
      defaultValue = "ring",
      description = "Channels: ring, mesh or random (default: ${DEFAULT-VALUE}).")
  Topologies.Kind topology;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "1s",
      description = "Time between snapshots (default: ${DEFAULT-VALUE}).")
  String interval;

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      defaultValue = "20s",
      description = "How long to run (default: ${DEFAULT-VALUE}).")
  String duration;

  @Option(
      names = "--crash-every",
      paramLabel = "DURATION",
      defaultValue = "7s",
      description =
          "Crash a random worker this often, replace it and roll back; with --ha, kill the leader "
              + "coordinator (0 = never; default: ${DEFAULT-VALUE}).")
  String crashEvery;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "1",
      description = "Seeds topology, transfers and crashes (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--rate",
      paramLabel = "N",
      defaultValue = "100",
      description = "Transfers per second each worker attempts (default: ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--balance",
      paramLabel = "N",
      defaultValue = "1000",
      description = "Opening balance of each account (default: ${DEFAULT-VALUE}).")
  long balance;

  @Option(names = "--json", description = "One JSON object per event, then a summary object.")
  boolean json;

  @Option(
      names = "--connect",
      paramLabel = "HOST:PORT",
      description = "Run only the workers, against this coordinator (default: an embedded one).")
  String connect;

  @Option(
      names = "--coordinators",
      paramLabel = "HOST:PORT,...",
      description =
          "Run only the workers, against these coordinators of one highly available cluster: "
              + "the workers follow the leader, the Admin calls go to the leader found at the start.")
  String coordinators;

  @Option(
      names = "--ha",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Run N embedded coordinators (2-5) of one highly available cluster, on an in-process "
              + "ZooKeeper and S3 server, and kill the leader every --crash-every (0 = one plain "
              + "coordinator; default: ${DEFAULT-VALUE}).")
  int ha;

  @Mixin io.cutpoint.ops.admin.CoordinatorCredentials credentials;

  @Option(
      names = "--worker-token-file",
      paramLabel = "FILE",
      description =
          "With --connect: file holding the coordinator's worker token, for the bank workers to join with.")
  Path workerTokenFile;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description =
          "Store of the embedded coordinator (default: a temporary directory deleted at exit).")
  Path dataDir;

  @Option(
      names = "--web",
      description = "Serve the web console of the embedded coordinator and print its URL.")
  boolean web;

  @Option(
      names = "--web-port",
      paramLabel = "PORT",
      defaultValue = "0",
      description = "With --web: the console's port on 127.0.0.1 (default: any free port).")
  int webPort;

  @Option(
      names = "--verbose",
      description =
          "Show the coordinator's and workers' logs (default: errors only; with --ha, none).")
  boolean verbose;

  @Override
  public Integer call() throws InterruptedException {
    Integer other = scenario.runIfSelected(spec);
    if (other != null) {
      return other;
    }
    if (connect != null && coordinators != null) {
      throw new ParameterException(
          spec.commandLine(), "--connect and --coordinators name the same thing: give one");
    }
    java.util.List<String> remote = null;
    if (connect != null) {
      remote =
          java.util.List.of(io.cutpoint.ops.admin.AdminOptionsAccess.checkTarget(spec, connect));
    } else if (coordinators != null) {
      try {
        remote = io.cutpoint.client.session.CoordinatorAddresses.parse(coordinators);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "bad --coordinators: " + e.getMessage());
      }
    }
    if (ha != 0 && (dataDir != null || web)) {
      throw new ParameterException(
          spec.commandLine(),
          "--ha keeps its snapshots in its in-process S3 server and serves no console: "
              + "it cannot be combined with --data-dir or --web");
    }
    if (remote != null && dataDir != null) {
      throw new ParameterException(
          spec.commandLine(),
          "--data-dir is for the embedded coordinator; " + "it cannot be combined with --connect");
    }
    if (web && remote != null) {
      throw new ParameterException(
          spec.commandLine(),
          "--web serves the embedded coordinator's console; "
              + "it cannot be combined with --connect (that coordinator serves its own on its HTTP port)");
    }
    if (webPort < 0 || webPort > 65535) {
      throw new ParameterException(
          spec.commandLine(), "--web-port must be 0..65535, got " + webPort);
    }
    DemoOptions options;
    try {
      options =
          new DemoOptions(
              workers,
              topology,
              duration("--interval", interval, true),
              duration("--duration", duration, false),
              duration("--crash-every", crashEvery, true),
              seed,
              remote,
              dataDir,
              balance,
              rate,
              10,
              ha);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    CoordinatorAccess access = CoordinatorAccess.plaintext();
    if (remote != null) {
      access = access(remote.get(0));
    } else if (credentials.given() || workerTokenFile != null) {
      throw new ParameterException(
          spec.commandLine(),
          "--token-file, --worker-token-file and the --tls "
              + "flags are for the coordinator of --connect; the embedded one needs none");
    }
    if (!verbose) {
      Logger root = LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
      if (root instanceof ch.qos.logback.classic.Logger logback) {
        // --ha: the killed leader's threads fail their ZooKeeper and store calls, as they should
        logback.setLevel(ha > 0 ? Level.OFF : Level.ERROR);
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    DemoRunner runner = new DemoRunner(options, access);
    if (web) {
      runner.serveWeb(webPort);
    }
    boolean terminal = System.console() != null && !json;
    try (DemoOutput view =
        json
            ? DemoOutput.json(out)
            : terminal ? DemoOutput.live(out, runner::statusLines) : DemoOutput.lines(out)) {
      return runner.run(view);
    }
  }

  /** The TLS files, the admin token and the worker token of the --connect coordinator, checked. */
  private CoordinatorAccess access(String connect) {
    io.grpc.ChannelCredentials transport = credentials.credentials(spec);
    String adminToken =
        credentials.token(
            spec, System.getenv(io.cutpoint.ops.admin.CoordinatorCredentials.TOKEN_ENV));
    try {
      // the TLS files are parsed when a channel is built: find out here, as a usage error
      new io.cutpoint.ops.admin.AdminClient(connect, Duration.ofSeconds(1), transport, adminToken)
          .close();
    } catch (IllegalArgumentException e) {
      throw credentials.unusableTlsFiles(spec, e);
    }
    io.cutpoint.client.session.WorkerToken workerToken = null;
    if (workerTokenFile != null) {
      try {
        workerToken =
            io.cutpoint.client.session.WorkerToken.of(
                java.nio.file.Files.readString(
                    workerTokenFile, java.nio.charset.StandardCharsets.UTF_8));
      } catch (java.io.IOException e) {
        throw new ParameterException(
            spec.commandLine(),
            "cannot read --worker-token-file " + workerTokenFile + ": " + e.getMessage());
      } catch (IllegalArgumentException e) {
        throw new ParameterException(
            spec.commandLine(), "--worker-token-file " + workerTokenFile + ": " + e.getMessage());
      }
    }
    return new CoordinatorAccess(transport, adminToken, workerToken);
  }

  private Duration duration(String flag, String text, boolean zeroAllowed) {
    try {
      Duration d = Durations.parse(text);
      if (d.isZero() && !zeroAllowed) {
        throw new IllegalArgumentException("must be more than 0");
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "bad " + flag + ": " + e.getMessage());
    }
  }
}
