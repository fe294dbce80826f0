package io.cutpoint.ops.config;

import io.cutpoint.server.rollback.RollbackPolicy;
import io.cutpoint.util.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;

/**
 * Resolves the settings of {@code cutpoint server} from four layers, the first that has a value
 * winning: command-line flags, then {@code CUTPOINT_*} environment variables, then the config
 * file, then the defaults. Pure: the caller reads the environment and the file.
 */
public final class SettingsResolver {

  private SettingsResolver() {}

  /**
   * @param flags values given on the command line, keyed by setting (absent = not given)
   * @param env the environment (only {@code CUTPOINT_*} variables of known settings are read)
   * @param file the config file's properties (empty when there is none); unknown keys are errors
   * @param fileName how to name the file in messages
   * @throws ConfigException naming the setting, its source and what is wrong
   */
  public static ServerSettings resolve(
      Map<Setting, String> flags, Map<String, String> env, Properties file, String fileName) {
    Map<Setting, String> fromFile = new EnumMap<>(Setting.class);
    for (String key : file.stringPropertyNames()) {
      Setting s = Setting.byKey(key).orElseThrow(() -> new ConfigException(
          "unknown setting '" + key + "' in " + fileName + " (known: " + knownKeys() + ")"));
      fromFile.put(s, file.getProperty(key).trim());
    }
    Map<Setting, String> raw = new EnumMap<>(Setting.class);
    Map<Setting, String> sources = new EnumMap<>(Setting.class);
    for (Setting s : Setting.values()) {
      if (flags.get(s) != null) {
        raw.put(s, flags.get(s));
        sources.put(s, "flag " + s.flag());
      } else if (env.get(s.envVar()) != null && !env.get(s.envVar()).isBlank()) {
        raw.put(s, env.get(s.envVar()));
        sources.put(s, "env " + s.envVar());
      } else if (fromFile.containsKey(s)) {
        raw.put(s, fromFile.get(s));
        sources.put(s, "file " + fileName);
      } else {
        raw.put(s, s.defaultValue());
        sources.put(s, "default");
      }
    }
    Parsed p = new Parsed(raw, sources);
    ServerSettings settings = new ServerSettings(
        p.integer(Setting.PORT), p.integer(Setting.METRICS_PORT), p.path(Setting.DATA_DIR),
        p.duration(Setting.INTERVAL), p.duration(Setting.TIMEOUT), p.duration(Setting.MIN_PAUSE),
        p.integer(Setting.MAX_CONCURRENT), p.integer(Setting.TOLERABLE_FAILURES),
        p.integer(Setting.RETAIN), p.duration(Setting.HEARTBEAT_INTERVAL),
        p.duration(Setting.HEARTBEAT_TIMEOUT), p.bytes(Setting.MAX_RECORDED_BYTES),
        p.rollbackPolicy(Setting.ROLLBACK_POLICY), p.duration(Setting.ROLLBACK_DEADLINE),
        p.optionalFile(Setting.ADMIN_TOKEN_FILE), p.optionalFile(Setting.TLS_CERT),
        p.optionalFile(Setting.TLS_KEY), p.optionalFile(Setting.TLS_CLIENT_CA),
        p.host(Setting.HOST), p.optionalFile(Setting.WORKER_TOKEN_FILE), p.integer(Setting.MAX_WORKERS),
        p.integer(Setting.MAX_CHANNELS_PER_WORKER), p.integer(Setting.MAX_ID_LENGTH),
        p.duration(Setting.DOWNLOAD_TIMEOUT), p.duration(Setting.FORGET_LOST_AFTER), sources);
    checkTogether(settings);
    return settings;
  }

  private static void checkTogether(ServerSettings s) {
    if (s.timeout().isZero()) {
      throw new ConfigException("timeout must be more than 0 (" + s.sources().get(Setting.TIMEOUT) + ")");
    }
    if (s.rollbackDeadline().isZero()) {
      throw new ConfigException("rollback-deadline must be more than 0 ("
          + s.sources().get(Setting.ROLLBACK_DEADLINE) + ")");
    }
    if (s.heartbeatInterval().isZero()) {
      throw new ConfigException("heartbeat-interval must be more than 0 ("
          + s.sources().get(Setting.HEARTBEAT_INTERVAL) + ")");
    }
    if (s.heartbeatTimeout().compareTo(s.heartbeatInterval()) <= 0) {
      throw new ConfigException("heartbeat-timeout (" + Durations.format(s.heartbeatTimeout())
          + ") must be longer than heartbeat-interval (" + Durations.format(s.heartbeatInterval()) + ")");
    }
    if ((s.tlsCert() == null) != (s.tlsKey() == null)) {
      throw new ConfigException("tls-cert and tls-key go together ("
          + s.sources().get(s.tlsCert() == null ? Setting.TLS_KEY : Setting.TLS_CERT) + ")");
    }
    if (s.tlsClientCa() != null && s.tlsCert() == null) {
      throw new ConfigException("tls-client-ca needs tls-cert and tls-key ("
          + s.sources().get(Setting.TLS_CLIENT_CA) + ")");
    }
    if (s.maxIdLength() > 128) {
      throw new ConfigException("max-id-length must be at most 128, the protocol's limit ("
          + s.sources().get(Setting.MAX_ID_LENGTH) + ")");
    }
    if (s.downloadTimeout().isZero()) {
      throw new ConfigException("download-timeout must be more than 0 ("
          + s.sources().get(Setting.DOWNLOAD_TIMEOUT) + ")");
    }
    if (s.metricsPort() >= 0 && s.metricsPort() == s.port() && s.port() != 0) {
      throw new ConfigException("port and metrics-port are both " + s.port());
    }
  }

  private static String knownKeys() {
    StringBuilder b = new StringBuilder();
    for (Setting s : Setting.values()) {
      b.append(b.length() == 0 ? "" : ", ").append(s.key());
    }
    return b.toString();
  }

  /** Parses raw values and names their source when one is bad. */
  private record Parsed(Map<Setting, String> raw, Map<Setting, String> sources) {

    int integer(Setting s) {
      return parse(s, () -> switch (s.kind()) {
        case PORT -> Values.integer(raw.get(s), 0, 65535);
        case PORT_OR_OFF -> Values.integer(raw.get(s), -1, 65535);
        case POSITIVE_INT -> Values.integer(raw.get(s), 1, Integer.MAX_VALUE);
        default -> Values.integer(raw.get(s), 0, Integer.MAX_VALUE);
      });
    }

    Duration duration(Setting s) {
      return parse(s, () -> Durations.parse(raw.get(s)));
    }

    RollbackPolicy rollbackPolicy(Setting s) {
      return parse(s, () -> switch (raw.get(s).trim().toLowerCase(java.util.Locale.ROOT)) {
        case "none" -> RollbackPolicy.NONE;
        case "latest-complete", "latest_complete" -> RollbackPolicy.LATEST_COMPLETE;
        default -> throw new IllegalArgumentException("'" + raw.get(s)
            + "' is not a rollback policy (none, latest-complete)");
      });
    }

    long bytes(Setting s) {
      return parse(s, () -> Values.bytes(raw.get(s)));
    }

    /** A host name or address without spaces, or null when the value is empty. */
    String host(Setting s) {
      String v = raw.get(s).trim();
      if (v.isEmpty()) {
        return null;
      }
      return parse(s, () -> {
        if (v.chars().anyMatch(c -> c <= ' ' || c >= 0x7f) || v.contains("/")) {
          throw new IllegalArgumentException("'" + v + "' is not a host name or address");
        }
        return v.startsWith("[") && v.endsWith("]") ? v.substring(1, v.length() - 1) : v;
      });
    }

    /** A path, or null when the value is empty. */
    Path optionalFile(Setting s) {
      return raw.get(s).isBlank() ? null : parse(s, () -> Path.of(raw.get(s).trim()));
    }

    Path path(Setting s) {
      return parse(s, () -> {
        if (raw.get(s).isBlank()) {
          throw new IllegalArgumentException("an empty path");
        }
        return Path.of(raw.get(s).trim());
      });
    }

    private <T> T parse(Setting s, java.util.function.Supplier<T> parser) {
      try {
        return parser.get();
      } catch (IllegalArgumentException e) {
        throw new ConfigException("bad value for " + s.key() + " (" + sources.get(s) + "): "
            + e.getMessage());
      }
    }
  }
}
