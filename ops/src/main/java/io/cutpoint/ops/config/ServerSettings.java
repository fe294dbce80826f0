package io.cutpoint.ops.config;

import io.cutpoint.server.rollback.RollbackPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The resolved settings of {@code cutpoint server}, with where each value came from.
 *
 * @param sources for every setting, the place its value came from ({@code flag --port},
 *     {@code env CUTPOINT_PORT}, {@code file cutpoint.properties}, {@code default})
 * @param adminTokenFile file holding the admin token; null = no token
 * @param tlsCert, tlsKey, tlsClientCa TLS files; null = plaintext / no client certificates
 * @param host the address to bind; null = decided by the coordinator (loopback unless workers
 *     authenticate)
 * @param workerTokenFile file holding the worker token; null = workers present none
 */
public record ServerSettings(
    int port,
    int metricsPort,
    Path dataDir,
    Duration interval,
    Duration timeout,
    Duration minPause,
    int maxConcurrent,
    int tolerableFailures,
    int retain,
    Duration heartbeatInterval,
    Duration heartbeatTimeout,
    long maxRecordedBytes,
    RollbackPolicy rollbackPolicy,
    Duration rollbackDeadline,
    Path adminTokenFile,
    Path tlsCert,
    Path tlsKey,
    Path tlsClientCa,
    String host,
    Path workerTokenFile,
    int maxWorkers,
    int maxChannelsPerWorker,
    int maxIdLength,
    Duration downloadTimeout,
    Duration forgetLostAfter,
    Map<Setting, String> sources) {

  public ServerSettings {
    sources = Map.copyOf(sources);
  }

  /** True when the Prometheus endpoint is off ({@code --metrics-port -1}). */
  public boolean metricsOff() {
    return metricsPort < 0;
  }
}
