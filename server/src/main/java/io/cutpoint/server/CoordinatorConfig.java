package io.cutpoint.server;

import io.cutpoint.server.rollback.RollbackPolicy;
import io.cutpoint.server.security.AdminToken;
import io.cutpoint.server.security.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a coordinator. Every setting and its default is described in
 * {@code src/site/markdown/operations.md}.
 *
 * @param port gRPC port (0 = ephemeral)
 * @param dataDir where the snapshot store lives
 * @param snapshotInterval time between periodic snapshots; {@link Duration#ZERO} = no periodic
 *     snapshots
 * @param snapshotTimeout a snapshot still pending after this long is aborted
 * @param minPauseBetweenSnapshots minimum time from the end of one snapshot to the start of the
 *     next
 * @param maxConcurrentSnapshots snapshots that may be pending at once
 * @param tolerableConsecutiveFailures consecutive failed or timed-out snapshots tolerated before
 *     the coordinator raises an event and logs an error
 * @param retainCompleteSnapshots complete snapshots kept (pinned ones are kept in addition)
 * @param heartbeatInterval how often workers heartbeat
 * @param heartbeatTimeout a worker silent for this long is lost
 * @param maxRecordedBytesPerSnapshot recorded channel payload bytes one worker may upload per
 *     snapshot (0 = no limit)
 * @param rollbackPolicy what to do by itself when a worker is lost (see {@code recovery.md})
 * @param rollbackDeadline a rollback not finished after this long fails (waiting for lost workers
 *     to rejoin counts)
 * @param adminToken the token callers of the Admin service must present; null = no check, which
 *     is only for a coordinator reachable from loopback or a trusted network (development)
 * @param tls the files to serve TLS with on the gRPC port; null = plaintext
 */
public record CoordinatorConfig(
    int port,
    Path dataDir,
    Duration snapshotInterval,
    Duration snapshotTimeout,
    Duration minPauseBetweenSnapshots,
    int maxConcurrentSnapshots,
    int tolerableConsecutiveFailures,
    int retainCompleteSnapshots,
    Duration heartbeatInterval,
    Duration heartbeatTimeout,
    long maxRecordedBytesPerSnapshot,
    RollbackPolicy rollbackPolicy,
    Duration rollbackDeadline,
    AdminToken adminToken,
    TlsFiles tls) {

  public static final Duration DEFAULT_SNAPSHOT_INTERVAL = Duration.ofSeconds(10);
  public static final Duration DEFAULT_SNAPSHOT_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_MIN_PAUSE = Duration.ZERO;
  public static final int DEFAULT_MAX_CONCURRENT = 1;
  public static final int DEFAULT_TOLERABLE_FAILURES = 3;
  public static final int DEFAULT_RETAIN = 5;
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Duration.ofSeconds(5);
  public static final long DEFAULT_MAX_RECORDED_BYTES = 256L << 20;
  public static final RollbackPolicy DEFAULT_ROLLBACK_POLICY = RollbackPolicy.NONE;
  public static final Duration DEFAULT_ROLLBACK_DEADLINE = Duration.ofSeconds(60);

  public CoordinatorConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0..65535, got " + port);
    }
    Objects.requireNonNull(dataDir, "dataDir");
    nonNegative("snapshotInterval", snapshotInterval);
    positive("snapshotTimeout", snapshotTimeout);
    nonNegative("minPauseBetweenSnapshots", minPauseBetweenSnapshots);
    positive("heartbeatInterval", heartbeatInterval);
    positive("heartbeatTimeout", heartbeatTimeout);
    if (heartbeatTimeout.compareTo(heartbeatInterval) <= 0) {
      throw new IllegalArgumentException("heartbeatTimeout (" + heartbeatTimeout
          + ") must be longer than heartbeatInterval (" + heartbeatInterval + ")");
    }
    if (maxConcurrentSnapshots < 1) {
      throw new IllegalArgumentException("maxConcurrentSnapshots must be >= 1, got " + maxConcurrentSnapshots);
    }
    if (tolerableConsecutiveFailures < 0) {
      throw new IllegalArgumentException(
          "tolerableConsecutiveFailures must be >= 0, got " + tolerableConsecutiveFailures);
    }
    if (retainCompleteSnapshots < 1) {
      throw new IllegalArgumentException("retainCompleteSnapshots must be >= 1, got " + retainCompleteSnapshots);
    }
    if (maxRecordedBytesPerSnapshot < 0) {
      throw new IllegalArgumentException(
          "maxRecordedBytesPerSnapshot must be >= 0, got " + maxRecordedBytesPerSnapshot);
    }
    Objects.requireNonNull(rollbackPolicy, "rollbackPolicy");
    positive("rollbackDeadline", rollbackDeadline);
  }

  /** The settings without the security ones: no admin token, plaintext. */
  public CoordinatorConfig(int port, Path dataDir, Duration snapshotInterval, Duration snapshotTimeout,
      Duration minPauseBetweenSnapshots, int maxConcurrentSnapshots, int tolerableConsecutiveFailures,
      int retainCompleteSnapshots, Duration heartbeatInterval, Duration heartbeatTimeout,
      long maxRecordedBytesPerSnapshot, RollbackPolicy rollbackPolicy, Duration rollbackDeadline) {
    this(port, dataDir, snapshotInterval, snapshotTimeout, minPauseBetweenSnapshots,
        maxConcurrentSnapshots, tolerableConsecutiveFailures, retainCompleteSnapshots,
        heartbeatInterval, heartbeatTimeout, maxRecordedBytesPerSnapshot, rollbackPolicy,
        rollbackDeadline, null, null);
  }

  /** The settings without the rollback ones, which keep their defaults. */
  public CoordinatorConfig(int port, Path dataDir, Duration snapshotInterval, Duration snapshotTimeout,
      Duration minPauseBetweenSnapshots, int maxConcurrentSnapshots, int tolerableConsecutiveFailures,
      int retainCompleteSnapshots, Duration heartbeatInterval, Duration heartbeatTimeout,
      long maxRecordedBytesPerSnapshot) {
    this(port, dataDir, snapshotInterval, snapshotTimeout, minPauseBetweenSnapshots,
        maxConcurrentSnapshots, tolerableConsecutiveFailures, retainCompleteSnapshots,
        heartbeatInterval, heartbeatTimeout, maxRecordedBytesPerSnapshot, DEFAULT_ROLLBACK_POLICY,
        DEFAULT_ROLLBACK_DEADLINE);
  }

  private static void nonNegative(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, got " + d);
    }
  }

  private static void positive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, got " + d);
    }
  }

  /** A builder with the documented defaults (port 0, data directory {@code ./data}). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    return new Builder()
        .port(port)
        .dataDir(dataDir)
        .snapshotInterval(snapshotInterval)
        .snapshotTimeout(snapshotTimeout)
        .minPauseBetweenSnapshots(minPauseBetweenSnapshots)
        .maxConcurrentSnapshots(maxConcurrentSnapshots)
        .tolerableConsecutiveFailures(tolerableConsecutiveFailures)
        .retainCompleteSnapshots(retainCompleteSnapshots)
        .heartbeatInterval(heartbeatInterval)
        .heartbeatTimeout(heartbeatTimeout)
        .maxRecordedBytesPerSnapshot(maxRecordedBytesPerSnapshot)
        .rollbackPolicy(rollbackPolicy)
        .rollbackDeadline(rollbackDeadline)
        .adminToken(adminToken)
        .tls(tls);
  }

  /** Builds a {@link CoordinatorConfig}; unset settings keep their defaults. */
  public static final class Builder {
    private int port = 0;
    private Path dataDir = Path.of("data");
    private Duration snapshotInterval = DEFAULT_SNAPSHOT_INTERVAL;
    private Duration snapshotTimeout = DEFAULT_SNAPSHOT_TIMEOUT;
    private Duration minPause = DEFAULT_MIN_PAUSE;
    private int maxConcurrent = DEFAULT_MAX_CONCURRENT;
    private int tolerableFailures = DEFAULT_TOLERABLE_FAILURES;
    private int retain = DEFAULT_RETAIN;
    private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
    private Duration heartbeatTimeout = DEFAULT_HEARTBEAT_TIMEOUT;
    private long maxRecordedBytes = DEFAULT_MAX_RECORDED_BYTES;
    private RollbackPolicy rollbackPolicy = DEFAULT_ROLLBACK_POLICY;
    private Duration rollbackDeadline = DEFAULT_ROLLBACK_DEADLINE;
    private AdminToken adminToken;
    private TlsFiles tls;

    private Builder() {}

    public Builder port(int v) { port = v; return this; }
    public Builder dataDir(Path v) { dataDir = v; return this; }
    public Builder snapshotInterval(Duration v) { snapshotInterval = v; return this; }
    public Builder snapshotTimeout(Duration v) { snapshotTimeout = v; return this; }
    public Builder minPauseBetweenSnapshots(Duration v) { minPause = v; return this; }
    public Builder maxConcurrentSnapshots(int v) { maxConcurrent = v; return this; }
    public Builder tolerableConsecutiveFailures(int v) { tolerableFailures = v; return this; }
    public Builder retainCompleteSnapshots(int v) { retain = v; return this; }
    public Builder heartbeatInterval(Duration v) { heartbeatInterval = v; return this; }
    public Builder heartbeatTimeout(Duration v) { heartbeatTimeout = v; return this; }
    public Builder maxRecordedBytesPerSnapshot(long v) { maxRecordedBytes = v; return this; }
    public Builder rollbackPolicy(RollbackPolicy v) { rollbackPolicy = v; return this; }
    public Builder rollbackDeadline(Duration v) { rollbackDeadline = v; return this; }
    /** Requires this token on the Admin service (null = no check: loopback/development only). */
    public Builder adminToken(AdminToken v) { adminToken = v; return this; }
    /** Serves TLS (mutual TLS when {@link TlsFiles#clientCa()} is set); null = plaintext. */
    public Builder tls(TlsFiles v) { tls = v; return this; }

    public CoordinatorConfig build() {
      return new CoordinatorConfig(port, dataDir, snapshotInterval, snapshotTimeout, minPause,
          maxConcurrent, tolerableFailures, retain, heartbeatInterval, heartbeatTimeout, maxRecordedBytes,
          rollbackPolicy, rollbackDeadline, adminToken, tls);
    }
  }
}
