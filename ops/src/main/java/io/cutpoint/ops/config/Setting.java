package io.cutpoint.ops.config;

import io.cutpoint.ha.node.HaCoordinator;
import io.cutpoint.ha.node.StoreUrl;
import io.cutpoint.ha.node.ZooKeeperAddress;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorConfig.WorkerLimits;
import io.cutpoint.server.rollback.RollbackPolicy;
import io.cutpoint.util.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * One setting of {@code cutpoint server}: its name in a config file, its flag, its environment
 * variable, its default and how its value is read.
 *
 * <p>A default that the coordinator has too is taken from {@link CoordinatorConfig} (its {@code
 * DEFAULT_*} constants and {@link WorkerLimits#DEFAULT}), so each default is written once; the
 * flag's help and {@code --print-config} show it from here. Only the defaults of the command alone
 * (ports, data directory) are written here. {@link SettingsDefaults} supplies the value of a flag
 * not given.
 */
public enum Setting {
  PORT("port", Kind.PORT, "7070", "gRPC port of the coordinator (0 = any free port)"),
  METRICS_PORT(
      "metrics-port",
      Kind.PORT_OR_OFF,
      "9464",
      "HTTP port of the Prometheus endpoint /metrics (0 = any free port, -1 = off)"),
  DATA_DIR("data-dir", Kind.PATH, "cutpoint-data", "directory of the RocksDB snapshot store"),
  INTERVAL(
      "interval",
      Kind.DURATION,
      Durations.format(CoordinatorConfig.DEFAULT_SNAPSHOT_INTERVAL),
      "time between periodic snapshots (0 = only on demand)"),
  TIMEOUT(
      "timeout",
      Kind.DURATION,
      Durations.format(CoordinatorConfig.DEFAULT_SNAPSHOT_TIMEOUT),
      "a snapshot not complete after this long is aborted"),
  MIN_PAUSE(
      "min-pause",
      Kind.DURATION,
      Durations.format(CoordinatorConfig.DEFAULT_MIN_PAUSE),
      "least time between the end of one snapshot and the start of the next"),
  MAX_CONCURRENT(
      "max-concurrent",
      Kind.POSITIVE_INT,
      String.valueOf(CoordinatorConfig.DEFAULT_MAX_CONCURRENT),
      "snapshots in flight at once"),
  TOLERABLE_FAILURES(
      "tolerable-failures",
      Kind.NON_NEGATIVE_INT,
      String.valueOf(CoordinatorConfig.DEFAULT_TOLERABLE_FAILURES),
      "consecutive failed or aborted snapshots tolerated before the coordinator reports it"),
  RETAIN(
      "retain",
      Kind.POSITIVE_INT,
      String.valueOf(CoordinatorConfig.DEFAULT_RETAIN),
      "complete snapshots kept (pinned ones come on top)"),
  HEARTBEAT_INTERVAL(
      "heartbeat-interval",
      Kind.DURATION,
      Durations.format(CoordinatorConfig.DEFAULT_HEARTBEAT_INTERVAL),
      "how often workers heartbeat"),
  HEARTBEAT_TIMEOUT(
      "heartbeat-timeout",
      Kind.DURATION,
      Durations.format(CoordinatorConfig.DEFAULT_HEARTBEAT_TIMEOUT),
      "a worker silent for this long is marked lost"),
  MAX_RECORDED_BYTES(
      "max-recorded-bytes",
      Kind.BYTES,
      Values.format(CoordinatorConfig.DEFAULT_MAX_RECORDED_BYTES),
      "most recorded channel bytes one worker may upload for one snapshot (0 = no limit)"),
  ROLLBACK_POLICY(
      "rollback-policy",
      Kind.ROLLBACK_POLICY,
      Values.format(CoordinatorConfig.DEFAULT_ROLLBACK_POLICY),
      "what to do when a worker is lost: none, or latest-complete (roll everyone back to the "
          + "newest complete snapshot once the worker is back)"),
  ROLLBACK_DEADLINE(
      "rollback-deadline",
      Kind.DURATION,
      Durations.format(CoordinatorConfig.DEFAULT_ROLLBACK_DEADLINE),
      "a rollback not finished after this long fails (it waits this long for lost workers)"),
  ADMIN_TOKEN_FILE(
      "admin-token-file",
      Kind.OPTIONAL_FILE,
      "",
      "file holding the token callers of the Admin service must present (none = no check, only "
          + "for a coordinator reachable from loopback or a trusted network)"),
  TLS_CERT(
      "tls-cert",
      Kind.OPTIONAL_FILE,
      "",
      "certificate chain (PEM) to serve TLS with on the gRPC port (none = plaintext)"),
  TLS_KEY("tls-key", Kind.OPTIONAL_FILE, "", "private key (PKCS#8 PEM) of tls-cert"),
  TLS_CLIENT_CA(
      "tls-client-ca",
      Kind.OPTIONAL_FILE,
      "",
      "CA certificates (PEM) that sign client certificates; when set, every client (workers and "
          + "operators) must present one: mutual TLS"),
  HOST(
      "host",
      Kind.HOST,
      "",
      "address the gRPC port binds (none = 127.0.0.1, loopback only, unless worker-token-file or "
          + "tls-client-ca is set, then 0.0.0.0, every interface)"),
  WORKER_TOKEN_FILE(
      "worker-token-file",
      Kind.OPTIONAL_FILE,
      "",
      "file holding the token workers must present to join, upload and download (none = no check)"),
  MAX_WORKERS(
      "max-workers",
      Kind.POSITIVE_INT,
      String.valueOf(WorkerLimits.DEFAULT.maxWorkers()),
      "workers the coordinator keeps, live and lost ones alike; a join of a new id past it is refused"),
  MAX_CHANNELS_PER_WORKER(
      "max-channels-per-worker",
      Kind.NON_NEGATIVE_INT,
      String.valueOf(WorkerLimits.DEFAULT.maxChannelsPerWorker()),
      "peers one worker may declare in each direction"),
  MAX_ID_LENGTH(
      "max-id-length",
      Kind.POSITIVE_INT,
      String.valueOf(WorkerLimits.DEFAULT.maxIdLength()),
      "longest worker id accepted on join (at most 128, the protocol's limit)"),
  DOWNLOAD_TIMEOUT(
      "download-timeout",
      Kind.DURATION,
      Durations.format(CoordinatorConfig.DEFAULT_DOWNLOAD_TIMEOUT),
      "a restore download not finished after this long is ended (DEADLINE_EXCEEDED)"),
  FORGET_LOST_AFTER(
      "forget-lost-after",
      Kind.DURATION,
      Durations.format(CoordinatorConfig.DEFAULT_FORGET_LOST_AFTER),
      "a worker lost for this long is removed, unless a rollback needs it (0 = never)"),
  ZOOKEEPER(
      "zookeeper",
      Kind.ZOOKEEPER,
      "",
      "ZooKeeper ensemble and cluster path, HOST:PORT[,HOST:PORT...]/PATH, of the shared catalog "
          + "and the leader election (none = one coordinator alone; needs store)"),
  STORE(
      "store",
      Kind.STORE,
      "",
      "shared snapshot store s3://BUCKET/PREFIX, written by the leader only (none = RocksDB in "
          + "data-dir; needs zookeeper)"),
  S3_ENDPOINT(
      "s3-endpoint",
      Kind.URL,
      "",
      "endpoint of an S3-compatible object store, e.g. http://127.0.0.1:9000 (none = AWS S3)"),
  S3_REGION("s3-region", Kind.TEXT, "us-east-1", "region of the store's bucket"),
  S3_PATH_STYLE(
      "s3-path-style",
      Kind.BOOLEAN,
      "false",
      "address the bucket in the URL's path, as S3Proxy and MinIO need (false = as a host name)"),
  ADVERTISE(
      "advertise",
      Kind.HOST_PORT,
      "",
      "HOST:PORT where workers and operators reach this coordinator; the standbys name it while "
          + "it leads (none = host:port; needs zookeeper)"),
  ZOOKEEPER_SESSION_TIMEOUT(
      "zookeeper-session-timeout",
      Kind.DURATION,
      Durations.format(HaCoordinator.ZK_SESSION_TIMEOUT),
      "a leader that stops answering ZooKeeper for this long loses the lead, and a standby takes "
          + "over (needs zookeeper)");

  /** How a value is read and written back, and the label of its flag's parameter. */
  public enum Kind {
    PORT("PORT"),
    PORT_OR_OFF("PORT"),
    PATH("DIR"),
    DURATION("DURATION"),
    POSITIVE_INT("N"),
    NON_NEGATIVE_INT("N"),
    BYTES("SIZE"),
    ROLLBACK_POLICY("POLICY"),
    /** A file path or nothing (empty). */
    OPTIONAL_FILE("FILE"),
    /** A host name or address, or nothing (empty). */
    HOST("HOST"),
    /** {@code HOST:PORT}, or nothing (empty). */
    HOST_PORT("HOST:PORT"),
    /** A ZooKeeper ensemble and path, or nothing (empty). */
    ZOOKEEPER("HOSTS/PATH"),
    /** An {@code s3://} store, or nothing (empty). */
    STORE("URL"),
    /** An http or https URL, or nothing (empty). */
    URL("URL"),
    TEXT("TEXT"),
    BOOLEAN("BOOL");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** The flag's parameter label in the help: {@code DURATION}, {@code SIZE}, ... */
    public String label() {
      return label;
    }
  }

  private final String key;
  private final Kind kind;
  private final String defaultValue;
  private final String description;

  Setting(String key, Kind kind, String defaultValue, String description) {
    this.key = key;
    this.kind = kind;
    this.defaultValue = defaultValue;
    this.description = description;
  }

  /** Name in a config file, and the flag without its leading dashes. */
  public String key() {
    return key;
  }

  /** The command-line flag, e.g. {@code --data-dir}. */
  public String flag() {
    return "--" + key;
  }

  /** The environment variable, e.g. {@code CUTPOINT_DATA_DIR}. */
  public String envVar() {
    return "CUTPOINT_" + key.replace('-', '_').toUpperCase(Locale.ROOT);
  }

  public Kind kind() {
    return kind;
  }

  public String defaultValue() {
    return defaultValue;
  }

  public String description() {
    return description;
  }

  /**
   * Reads a value of this setting: an {@code Integer}, {@code Duration}, {@code Long}, {@code
   * Path}, {@code RollbackPolicy} or {@code String}; null for an empty optional file or host.
   *
   * @param source where the text came from, for the message
   * @throws ConfigException naming the setting, the source and what is wrong
   */
  public Object parse(String text, String source) {
    try {
      return switch (kind) {
        case PORT -> Values.integer(text, 0, 65535);
        case PORT_OR_OFF -> Values.integer(text, -1, 65535);
        case POSITIVE_INT -> Values.integer(text, 1, Integer.MAX_VALUE);
        case NON_NEGATIVE_INT -> Values.integer(text, 0, Integer.MAX_VALUE);
        case DURATION -> Durations.parse(text);
        case BYTES -> Values.bytes(text);
        case ROLLBACK_POLICY -> Values.rollbackPolicy(text);
        case PATH -> {
          if (text.isBlank()) {
            throw new IllegalArgumentException("an empty path");
          }
          yield Path.of(text.trim());
        }
        case OPTIONAL_FILE -> text.isBlank() ? null : Path.of(text.trim());
        case HOST -> text.isBlank() ? null : Values.host(text.trim());
        case HOST_PORT -> text.isBlank() ? null : Values.hostPort(text.trim());
        case ZOOKEEPER -> text.isBlank() ? null : ZooKeeperAddress.parse(text);
        case STORE -> text.isBlank() ? null : StoreUrl.parse(text);
        case URL -> text.isBlank() ? null : Values.url(text.trim());
        case TEXT -> {
          if (text.isBlank()) {
            throw new IllegalArgumentException("an empty value");
          }
          yield text.trim();
        }
        case BOOLEAN -> Values.bool(text);
      };
    } catch (IllegalArgumentException e) {
      throw new ConfigException("bad value for " + key + " (" + source + "): " + e.getMessage());
    }
  }

  /** A value of this setting as {@link #parse} reads it back; {@code none} for null. */
  public String format(Object value) {
    return switch (kind) {
      case DURATION -> Durations.format((Duration) value);
      case BYTES -> Values.format((Long) value);
      case ROLLBACK_POLICY -> Values.format((RollbackPolicy) value);
      default -> value == null ? "none" : value.toString();
    };
  }

  /** The keys of every setting, comma-separated. */
  public static String keys() {
    return java.util.Arrays.stream(values())
        .map(Setting::key)
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /**
   * The setting a config-file key names; accepts {@code data-dir}, {@code data_dir}, {@code
   * data.dir}.
   */
  public static Optional<Setting> byKey(String key) {
    String normal = key.trim().toLowerCase(Locale.ROOT).replace('_', '-').replace('.', '-');
    for (Setting s : values()) {
      if (s.key.equals(normal)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
