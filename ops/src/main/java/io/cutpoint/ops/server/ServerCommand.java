package io.cutpoint.ops.server;

import io.cutpoint.ha.node.HaCoordinator;
import io.cutpoint.ha.node.HaSettings;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.config.ConfigException;
import io.cutpoint.ops.config.ServerSettings;
import io.cutpoint.ops.config.Setting;
import io.cutpoint.ops.config.SettingsDefaults;
import io.cutpoint.ops.http.HttpEndpoint;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.security.AdminToken;
import io.cutpoint.server.security.TlsFiles;
import io.cutpoint.server.security.TlsSetupException;
import io.cutpoint.util.Durations;
import io.grpc.Channel;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Runs a coordinator until it is stopped: SIGTERM stops it gracefully and exits 0; Ctrl-C stops it
 * too. Each setting of {@link Setting} is a flag, an environment variable and a config-file key;
 * flags win over the environment, the environment over the file, the file over the defaults.
 */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    description = {
      "Run a coordinator: the gRPC services for workers and operators, the snapshot "
          + "schedule, the RocksDB store, and the Prometheus endpoint.",
      "Every setting comes from its flag, else its environment variable (CUTPOINT_PORT, "
          + "CUTPOINT_DATA_DIR, ...), else the --config file (key=value lines such as 'interval=5s'), "
          + "else its default. Durations: 500ms, 10s, 1m. Sizes: 1048576, 512KiB, 64MiB."
    })
public final class ServerCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(ServerCommand.class);

  @Spec CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Config file of key=value lines (keys: the flag names without dashes).")
  Path configFile;

  @Option(
      names = "--print-config",
      description = "Print the resolved settings and where each came from, then exit.")
  boolean printConfig;

  @Option(
      names = "--metrics-host",
      paramLabel = "HOST",
      defaultValue = "0.0.0.0",
      description = "Address the metrics endpoint binds to (default: ${DEFAULT-VALUE}).")
  String metricsHost;

  /** Supplies the flags not given; set by {@link #addSettingOptions}. */
  private SettingsDefaults defaults;

  /**
   * Adds one flag per {@link Setting} to the server command; a flag not given takes its value from
   * {@link SettingsDefaults} (environment, config file, default).
   */
  public static void addSettingOptions(CommandLine server, Map<String, String> env) {
    ServerCommand command = server.getCommand();
    command.defaults = new SettingsDefaults(env, () -> command.configFile);
    for (Setting s : Setting.values()) {
      server
          .getCommandSpec()
          .addOption(
              OptionSpec.builder(s.flag())
                  .paramLabel(s.kind().label())
                  .type(Object.class)
                  .converters(text -> s.parse(text, command.defaults.source(s)))
                  .description(
                      Character.toUpperCase(s.description().charAt(0))
                          + s.description().substring(1)
                          + " (env "
                          + s.envVar()
                          + "; default: "
                          + (s.defaultValue().isEmpty() ? "none" : s.defaultValue())
                          + ")")
                  .build());
    }
    server.setDefaultValueProvider(command.defaults);
  }

  /** The settings after parsing: flags, else environment, file and defaults. */
  ServerSettings settings() {
    Map<Setting, Object> values = new EnumMap<>(Setting.class);
    Map<Setting, String> sources = new EnumMap<>(Setting.class);
    for (Setting s : Setting.values()) {
      values.put(s, spec.findOption(s.flag()).getValue());
      sources.put(s, defaults.source(s));
    }
    return new ServerSettings(values, sources);
  }

  @Override
  public Integer call() throws Exception {
    ServerSettings settings = settings();
    PrintWriter out = spec.commandLine().getOut();
    if (printConfig) {
      out.print(describe(settings));
      out.flush();
      return ExitCodes.OK;
    }
    resolvable("--host", settings.host());
    if (!settings.metricsOff()) {
      resolvable("--metrics-host", metricsHost);
    }
    return serve(settings, out);
  }

  /** A host that does not resolve is a usage error, found before anything starts. */
  private static void resolvable(String flag, String host) {
    if (host == null) {
      return; // the default
    }
    try {
      java.net.InetAddress.getByName(host);
    } catch (java.net.UnknownHostException | SecurityException e) {
      throw CliFailure.usage(
          flag + " '" + host + "' does not resolve to an address: " + e.getMessage());
    }
  }

  private int serve(ServerSettings settings, PrintWriter out) throws InterruptedException {
    if (settings.ha().isPresent()) {
      return serveHa(settings, settings.ha().get(), out);
    }
    try {
      Files.createDirectories(settings.dataDir());
    } catch (IOException e) {
      throw CliFailure.failed("cannot create data directory " + settings.dataDir() + ": " + e);
    }
    CoordinatorConfig config = toConfig(settings);
    Metrics metrics = new Metrics();
    CoordinatorServer server;
    try {
      server = CoordinatorServer.start(config, metrics.registry());
    } catch (TlsSetupException e) {
      metrics.close();
      throw CliFailure.failed(e.getMessage());
    } catch (IOException e) {
      metrics.close();
      throw CliFailure.failed(
          "cannot start coordinator on port " + settings.port() + ": " + causeText(e));
    } catch (RuntimeException e) {
      metrics.close();
      throw CliFailure.failed(
          "cannot start coordinator with data directory "
              + settings.dataDir()
              + ": "
              + causeText(e));
    }
    HttpEndpoint endpoint =
        startEndpoint(settings, metrics, server.adminChannel(), config, server::close);
    Stopper stopper = new Stopper(server::close, endpoint, metrics);
    String metricsText =
        endpoint == null
            ? "metrics off"
            : "metrics on "
                + (config.tls() == null ? "http" : "https")
                + "://"
                + displayHost(metricsHost)
                + ":"
                + endpoint.port()
                + "/metrics, console at /";
    out.println(
        "cutpoint server listening on "
            + server.bindDescription()
            + ", "
            + metricsText
            + ", data in "
            + settings.dataDir().toAbsolutePath());
    out.flush();
    log.info(
        "coordinator on port {}, snapshot interval {}, {}",
        server.port(),
        Durations.format(settings.interval()),
        metricsText);
    return runUntilStopped(stopper, server::awaitTermination);
  }

  /**
   * Runs a coordinator of a highly available cluster: a standby at once, the leader when elected
   * (see {@link HaCoordinator}).
   */
  private int serveHa(ServerSettings settings, HaSettings ha, PrintWriter out)
      throws InterruptedException {
    CoordinatorConfig config = toConfig(settings);
    Metrics metrics = new Metrics();
    HaCoordinator node;
    try {
      node = HaCoordinator.start(config, ha, metrics.registry());
    } catch (TlsSetupException e) {
      metrics.close();
      throw CliFailure.failed(e.getMessage());
    } catch (IOException e) {
      metrics.close();
      throw CliFailure.failed(
          "cannot start coordinator on port " + settings.port() + ": " + causeText(e));
    } catch (RuntimeException e) {
      metrics.close();
      throw CliFailure.failed(
          "cannot join the cluster at zookeeper " + ha.zookeeper() + ": " + causeText(e));
    }
    HttpEndpoint endpoint =
        startEndpoint(settings, metrics, node.localChannel(), config, node::close);
    Stopper stopper = new Stopper(node::close, endpoint, metrics);
    out.println(
        "cutpoint server listening on port "
            + node.port()
            + " as "
            + node.address()
            + ", standby of the cluster at zookeeper "
            + ha.zookeeper()
            + " with store "
            + ha.store()
            + (endpoint == null ? ", metrics off" : ", metrics on port " + endpoint.port()));
    out.flush();
    return runUntilStopped(stopper, node::awaitClosed);
  }

  /**
   * Serves metrics and the console unless they are off; on failure closes what was started and
   * exits.
   */
  private HttpEndpoint startEndpoint(
      ServerSettings settings,
      Metrics metrics,
      Channel admin,
      CoordinatorConfig config,
      Runnable closeServer) {
    if (settings.metricsOff()) {
      return null;
    }
    try {
      return HttpEndpoint.start(
          metricsHost,
          settings.metricsPort(),
          metrics.registry(),
          admin,
          config.tls(),
          config.adminAuthenticated());
    } catch (IOException | RuntimeException e) {
      closeServer.run();
      metrics.close();
      throw CliFailure.failed(
          "cannot serve metrics on port " + settings.metricsPort() + ": " + causeText(e));
    }
  }

  /** What the command waits on until the server ends. */
  @FunctionalInterface
  private interface Running {
    void await() throws InterruptedException;
  }

  /** Stops on SIGTERM or the JVM's shutdown, and once {@code running} returns. */
  private static int runUntilStopped(Stopper stopper, Running running) throws InterruptedException {
    Thread hook = new Thread(stopper::stop, "cutpoint-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    StopOnSigterm.install(stopper::stop);
    try {
      running.await();
    } finally {
      stopper.stop();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException alreadyShuttingDown) {
        // The hook is running.
      }
    }
    return ExitCodes.OK;
  }

  /**
   * Maps resolved settings to the coordinator's configuration; reads the admin token file.
   *
   * @throws ConfigException if the token file cannot be read or holds no usable token
   */
  public static CoordinatorConfig toConfig(ServerSettings s) {
    TlsFiles tls =
        s.tlsCert() == null ? null : new TlsFiles(s.tlsCert(), s.tlsKey(), s.tlsClientCa());
    return new CoordinatorConfig(
            s.port(),
            s.dataDir(),
            s.interval(),
            s.timeout(),
            s.minPause(),
            s.maxConcurrent(),
            s.tolerableFailures(),
            s.retain(),
            s.heartbeatInterval(),
            s.heartbeatTimeout(),
            s.maxRecordedBytes(),
            s.rollbackPolicy(),
            s.rollbackDeadline(),
            token(s, s.adminTokenFile(), Setting.ADMIN_TOKEN_FILE),
            tls,
            s.host(),
            token(s, s.workerTokenFile(), Setting.WORKER_TOKEN_FILE),
            new CoordinatorConfig.WorkerLimits(
                s.maxWorkers(), s.maxChannelsPerWorker(), s.maxIdLength()),
            s.downloadTimeout())
        .toBuilder().forgetLostAfter(s.forgetLostAfter()).build();
  }

  private static AdminToken token(ServerSettings s, Path file, Setting setting) {
    if (file == null) {
      return null;
    }
    String where = setting.key() + " " + file + " (" + s.sources().get(setting) + ")";
    try {
      return AdminToken.of(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new ConfigException("cannot read " + where + ": " + e);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("unusable " + where + ": " + e.getMessage());
    }
  }

  /** The settings as {@code key = value (source)} lines. */
  public static String describe(ServerSettings s) {
    StringBuilder b = new StringBuilder();
    for (Setting setting : Setting.values()) {
      // A token file is shown by its path, never the token.
      b.append(
          String.format(
              "%-20s %-22s # %s%n",
              setting.key(), setting.format(s.value(setting)), s.sources().get(setting)));
    }
    return b.toString();
  }

  private static String displayHost(String host) {
    return host.equals("0.0.0.0") ? "localhost" : host;
  }

  static String causeText(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    String lower = m.toLowerCase(java.util.Locale.ROOT);
    if (lower.contains("address already in use")) {
      return "address already in use";
    }
    if (lower.contains("lock") && lower.contains("temporarily unavailable")) {
      return "it is in use by another process (" + m.trim() + ")";
    }
    return m;
  }

  /** Stops the endpoint, the coordinator and the registry once. */
  private static final class Stopper {
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final Runnable server;
    private final HttpEndpoint endpoint;
    private final Metrics metrics;

    Stopper(Runnable server, HttpEndpoint endpoint, Metrics metrics) {
      this.server = server;
      this.endpoint = endpoint;
      this.metrics = metrics;
    }

    void stop() {
      if (!stopped.compareAndSet(false, true)) {
        return;
      }
      System.err.println("cutpoint: shutting down");
      if (endpoint != null) {
        endpoint.close();
      }
      server.run();
      metrics.close();
    }
  }
}
