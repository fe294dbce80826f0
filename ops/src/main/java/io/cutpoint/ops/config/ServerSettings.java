package io.cutpoint.ops.config;

import static io.cutpoint.ops.config.Setting.*;

import io.cutpoint.ha.node.HaSettings;
import io.cutpoint.ha.node.StoreUrl;
import io.cutpoint.ha.node.ZooKeeperAddress;
import io.cutpoint.server.rollback.RollbackPolicy;
import io.cutpoint.util.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * The resolved settings of {@code cutpoint server}, with where each value came from. A file, {@link
 * #host} or token file that is not set is null.
 */
public final class ServerSettings {

  private final Map<Setting, Object> values;
  private final Map<Setting, String> sources;

  /**
   * @param values every setting's value as {@link Setting#parse} read it
   * @param sources for every setting, the place its value came from ({@code flag --port}, {@code
   *     env CUTPOINT_PORT}, {@code file cutpoint.properties}, {@code default})
   * @throws ConfigException when two settings do not fit together
   */
  public ServerSettings(Map<Setting, Object> values, Map<Setting, String> sources) {
    this.values = Collections.unmodifiableMap(new EnumMap<>(values));
    this.sources = Map.copyOf(sources);
    checkTogether();
  }

  public Object value(Setting s) {
    return values.get(s);
  }

  public Map<Setting, String> sources() {
    return sources;
  }

  public int port() {
    return (Integer) values.get(PORT);
  }

  public int metricsPort() {
    return (Integer) values.get(METRICS_PORT);
  }

  public Path dataDir() {
    return (Path) values.get(DATA_DIR);
  }

  public Duration interval() {
    return (Duration) values.get(INTERVAL);
  }

  public Duration timeout() {
    return (Duration) values.get(TIMEOUT);
  }

  public Duration minPause() {
    return (Duration) values.get(MIN_PAUSE);
  }

  public int maxConcurrent() {
    return (Integer) values.get(MAX_CONCURRENT);
  }

  public int tolerableFailures() {
    return (Integer) values.get(TOLERABLE_FAILURES);
  }

  public int retain() {
    return (Integer) values.get(RETAIN);
  }

  public Duration heartbeatInterval() {
    return (Duration) values.get(HEARTBEAT_INTERVAL);
  }

  public Duration heartbeatTimeout() {
    return (Duration) values.get(HEARTBEAT_TIMEOUT);
  }

  public long maxRecordedBytes() {
    return (Long) values.get(MAX_RECORDED_BYTES);
  }

  public RollbackPolicy rollbackPolicy() {
    return (RollbackPolicy) values.get(ROLLBACK_POLICY);
  }

  public Duration rollbackDeadline() {
    return (Duration) values.get(ROLLBACK_DEADLINE);
  }

  public Path adminTokenFile() {
    return (Path) values.get(ADMIN_TOKEN_FILE);
  }

  public Path tlsCert() {
    return (Path) values.get(TLS_CERT);
  }

  public Path tlsKey() {
    return (Path) values.get(TLS_KEY);
  }

  public Path tlsClientCa() {
    return (Path) values.get(TLS_CLIENT_CA);
  }

  public String host() {
    return (String) values.get(HOST);
  }

  public Path workerTokenFile() {
    return (Path) values.get(WORKER_TOKEN_FILE);
  }

  public int maxWorkers() {
    return (Integer) values.get(MAX_WORKERS);
  }

  public int maxChannelsPerWorker() {
    return (Integer) values.get(MAX_CHANNELS_PER_WORKER);
  }

  public int maxIdLength() {
    return (Integer) values.get(MAX_ID_LENGTH);
  }

  public Duration downloadTimeout() {
    return (Duration) values.get(DOWNLOAD_TIMEOUT);
  }

  public Duration forgetLostAfter() {
    return (Duration) values.get(FORGET_LOST_AFTER);
  }

  /** The ZooKeeper of a highly available cluster; null for a coordinator alone. */
  public ZooKeeperAddress zookeeper() {
    return (ZooKeeperAddress) values.get(ZOOKEEPER);
  }

  /** How long a silent leader keeps its ZooKeeper session, and so the lead. */
  public Duration zookeeperSessionTimeout() {
    return (Duration) values.get(ZOOKEEPER_SESSION_TIMEOUT);
  }

  /** The shared store; null for the RocksDB store in the data directory. */
  public StoreUrl store() {
    return (StoreUrl) values.get(STORE);
  }

  /** The settings of a highly available coordinator, or empty for a coordinator alone. */
  public java.util.Optional<HaSettings> ha() {
    if (zookeeper() == null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        new HaSettings(
            zookeeper(),
            store(),
            (java.net.URI) values.get(S3_ENDPOINT),
            (String) values.get(S3_REGION),
            (Boolean) values.get(S3_PATH_STYLE),
            (String) values.get(ADVERTISE),
            zookeeperSessionTimeout()));
  }

  /** True when the Prometheus endpoint is off ({@code --metrics-port -1}). */
  public boolean metricsOff() {
    return metricsPort() < 0;
  }

  private void checkTogether() {
    mustBePositive(timeout(), TIMEOUT);
    mustBePositive(rollbackDeadline(), ROLLBACK_DEADLINE);
    mustBePositive(heartbeatInterval(), HEARTBEAT_INTERVAL);
    mustBePositive(zookeeperSessionTimeout(), ZOOKEEPER_SESSION_TIMEOUT);
    if (heartbeatTimeout().compareTo(heartbeatInterval()) <= 0) {
      throw new ConfigException(
          "heartbeat-timeout ("
              + Durations.format(heartbeatTimeout())
              + ") must be longer than heartbeat-interval ("
              + Durations.format(heartbeatInterval())
              + ")");
    }
    if ((tlsCert() == null) != (tlsKey() == null)) {
      throw new ConfigException(
          "tls-cert and tls-key go together ("
              + sources.get(tlsCert() == null ? TLS_KEY : TLS_CERT)
              + ")");
    }
    if (tlsClientCa() != null && tlsCert() == null) {
      throw new ConfigException(
          "tls-client-ca needs tls-cert and tls-key (" + sources.get(TLS_CLIENT_CA) + ")");
    }
    if (maxIdLength() > 128) {
      throw new ConfigException(
          "max-id-length must be at most 128, the protocol's limit ("
              + sources.get(MAX_ID_LENGTH)
              + ")");
    }
    mustBePositive(downloadTimeout(), DOWNLOAD_TIMEOUT);
    checkHa();
    if (metricsPort() >= 0 && metricsPort() == port() && port() != 0) {
      throw new ConfigException("port and metrics-port are both " + port());
    }
  }

  /** A shared catalog needs both: the store's catalog and its leader's term live in ZooKeeper. */
  private void checkHa() {
    if (zookeeper() != null && store() == null) {
      throw new ConfigException(
          "zookeeper ("
              + sources.get(ZOOKEEPER)
              + ") needs store s3://BUCKET/PREFIX: every coordinator of the cluster must read the "
              + "snapshots its leader wrote, and a RocksDB store in one data-dir is not shared");
    }
    if (store() != null && zookeeper() == null) {
      throw new ConfigException(
          "store ("
              + sources.get(STORE)
              + ") needs zookeeper HOST:PORT/PATH: the shared store keeps its catalog and the "
              + "leader term that fences an old leader's writes in ZooKeeper");
    }
    for (Setting s : new Setting[] {S3_ENDPOINT, ADVERTISE}) {
      if (values.get(s) != null && zookeeper() == null) {
        throw new ConfigException(
            s.key() + " (" + sources.get(s) + ") is used only with zookeeper and store");
      }
    }
  }

  private void mustBePositive(Duration d, Setting s) {
    if (d.isZero()) {
      throw new ConfigException(s.key() + " must be more than 0 (" + sources.get(s) + ")");
    }
  }
}
