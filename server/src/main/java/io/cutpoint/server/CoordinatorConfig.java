package io.cutpoint.server;

import io.cutpoint.server.rollback.RollbackPolicy;
import io.cutpoint.server.security.AdminToken;
import io.cutpoint.server.security.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a coordinator. Every setting and its default is described in {@code
 * src/site/markdown/operations.md}.
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
 * @param adminToken the token callers of the Admin service must present; null = no check, which is
 *     only for a coordinator reachable from loopback or a trusted network (development)
 * @param tls the files to serve TLS with on the gRPC port; null = plaintext
 * @param host the address the gRPC port binds; null = {@link #bindHost()} decides (loopback unless
 *     a worker token or TLS is set)
 * @param workerToken the token workers must present ({@code authorization: Bearer}) on every call
 *     of the worker-facing service; null = no check
 * @param limits how much one worker, and all of them, may declare
 * @param downloadTimeout a download not finished after this long is ended with DEADLINE_EXCEEDED
 * @param forgetLostAfter a worker lost for this long (since its last heartbeat) is removed, unless
 *     a rollback needs it; {@link Duration#ZERO} = never (the default)
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
    TlsFiles tls,
    String host,
    AdminToken workerToken,
    WorkerLimits limits,
    Duration downloadTimeout,
    Duration forgetLostAfter) {

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
  public static final Duration DEFAULT_DOWNLOAD_TIMEOUT = Duration.ofSeconds(60);

  /** Lost workers are never forgotten by default. */
  public static final Duration DEFAULT_FORGET_LOST_AFTER = Duration.ZERO;

  /** The address bound when neither a worker token nor TLS protects the worker-facing service. */
  public static final String LOOPBACK = "127.0.0.1";

  /** The address bound by default when workers must authenticate: every interface. */
  public static final String ANY = "0.0.0.0";

  /**
   * How much the workers may declare; a join past a limit is refused with a status naming it.
   *
   * @param maxWorkers workers the coordinator keeps (live and lost ones alike)
   * @param maxChannelsPerWorker peers one worker may declare in each direction
   * @param maxIdLength longest worker id accepted on join (the protocol allows at most 128)
   */
  public record WorkerLimits(int maxWorkers, int maxChannelsPerWorker, int maxIdLength) {
    public static final WorkerLimits DEFAULT = new WorkerLimits(1024, 1024, 128);

    public WorkerLimits {
      if (maxWorkers < 1) {
        throw new IllegalArgumentException("maxWorkers must be >= 1, got " + maxWorkers);
      }
      if (maxChannelsPerWorker < 0) {
        throw new IllegalArgumentException(
            "maxChannelsPerWorker must be >= 0, got " + maxChannelsPerWorker);
      }
      if (maxIdLength < 1 || maxIdLength > 128) {
        throw new IllegalArgumentException("maxIdLength must be 1..128, got " + maxIdLength);
      }
    }
  }

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
      throw new IllegalArgumentException(
          "heartbeatTimeout ("
              + heartbeatTimeout
              + ") must be longer than heartbeatInterval ("
              + heartbeatInterval
              + ")");
    }
    if (maxConcurrentSnapshots < 1) {
      throw new IllegalArgumentException(
          "maxConcurrentSnapshots must be >= 1, got " + maxConcurrentSnapshots);
    }
    if (tolerableConsecutiveFailures < 0) {
      throw new IllegalArgumentException(
          "tolerableConsecutiveFailures must be >= 0, got " + tolerableConsecutiveFailures);
    }
    if (retainCompleteSnapshots < 1) {
      throw new IllegalArgumentException(
          "retainCompleteSnapshots must be >= 1, got " + retainCompleteSnapshots);
    }
    if (maxRecordedBytesPerSnapshot < 0) {
      throw new IllegalArgumentException(
          "maxRecordedBytesPerSnapshot must be >= 0, got " + maxRecordedBytesPerSnapshot);
    }
    Objects.requireNonNull(rollbackPolicy, "rollbackPolicy");
    positive("rollbackDeadline", rollbackDeadline);
    if (host != null && host.isBlank()) {
      host = null;
    }
    limits = limits == null ? WorkerLimits.DEFAULT : limits;
    downloadTimeout = downloadTimeout == null ? DEFAULT_DOWNLOAD_TIMEOUT : downloadTimeout;
    positive("downloadTimeout", downloadTimeout);
    forgetLostAfter = forgetLostAfter == null ? DEFAULT_FORGET_LOST_AFTER : forgetLostAfter;
    nonNegative("forgetLostAfter", forgetLostAfter);
  }

  /** The settings without forget-lost-after (off). */
  public CoordinatorConfig(
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
      TlsFiles tls,
      String host,
      AdminToken workerToken,
      WorkerLimits limits,
      Duration downloadTimeout) {
    this(
        port,
        dataDir,
        snapshotInterval,
        snapshotTimeout,
        minPauseBetweenSnapshots,
        maxConcurrentSnapshots,
        tolerableConsecutiveFailures,
        retainCompleteSnapshots,
        heartbeatInterval,
        heartbeatTimeout,
        maxRecordedBytesPerSnapshot,
        rollbackPolicy,
        rollbackDeadline,
        adminToken,
        tls,
        host,
        workerToken,
        limits,
        downloadTimeout,
        Duration.ZERO);
  }

  /** The settings without the ones for binding, worker authentication and limits (defaults). */
  public CoordinatorConfig(
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
    this(
        port,
        dataDir,
        snapshotInterval,
        snapshotTimeout,
        minPauseBetweenSnapshots,
        maxConcurrentSnapshots,
        tolerableConsecutiveFailures,
        retainCompleteSnapshots,
        heartbeatInterval,
        heartbeatTimeout,
        maxRecordedBytesPerSnapshot,
        rollbackPolicy,
        rollbackDeadline,
        adminToken,
        tls,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * The address the gRPC port binds: {@link #host()} when set; otherwise loopback when workers are
   * not authenticated (no worker token and no mutual TLS), every interface when they are.
   */
  public String bindHost() {
    if (host != null) {
      return host;
    }
    return workerToken != null || (tls != null && tls.mutual()) ? ANY : LOOPBACK;
  }

  /** Whether Admin callers prove who they are: an admin token, or client certificates. */
  public boolean adminAuthenticated() {
    return adminToken != null || (tls != null && tls.mutual());
  }

  /** The settings without the security ones: no admin token, plaintext. */
  public CoordinatorConfig(
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
      Duration rollbackDeadline) {
    this(
        port,
        dataDir,
        snapshotInterval,
        snapshotTimeout,
        minPauseBetweenSnapshots,
        maxConcurrentSnapshots,
        tolerableConsecutiveFailures,
        retainCompleteSnapshots,
        heartbeatInterval,
        heartbeatTimeout,
        maxRecordedBytesPerSnapshot,
        rollbackPolicy,
        rollbackDeadline,
        null,
        null);
  }

  /** The settings without the rollback ones, which keep their defaults. */
  public CoordinatorConfig(
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
      long maxRecordedBytesPerSnapshot) {
    this(
        port,
        dataDir,
        snapshotInterval,
        snapshotTimeout,
        minPauseBetweenSnapshots,
        maxConcurrentSnapshots,
        tolerableConsecutiveFailures,
        retainCompleteSnapshots,
        heartbeatInterval,
        heartbeatTimeout,
        maxRecordedBytesPerSnapshot,
        DEFAULT_ROLLBACK_POLICY,
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
        .tls(tls)
        .host(host)
        .workerToken(workerToken)
        .limits(limits)
        .downloadTimeout(downloadTimeout)
        .forgetLostAfter(forgetLostAfter);
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
    private String host;
    private AdminToken workerToken;
    private WorkerLimits limits = WorkerLimits.DEFAULT;
    private Duration downloadTimeout = DEFAULT_DOWNLOAD_TIMEOUT;
    private Duration forgetLostAfter = Duration.ZERO;

    private Builder() {}

    public Builder port(int v) {
      port = v;
      return this;
    }

    public Builder dataDir(Path v) {
      dataDir = v;
      return this;
    }

    public Builder snapshotInterval(Duration v) {
      snapshotInterval = v;
      return this;
    }

    public Builder snapshotTimeout(Duration v) {
      snapshotTimeout = v;
      return this;
    }

    public Builder minPauseBetweenSnapshots(Duration v) {
      minPause = v;
      return this;
    }

    public Builder maxConcurrentSnapshots(int v) {
      maxConcurrent = v;
      return this;
    }

    public Builder tolerableConsecutiveFailures(int v) {
      tolerableFailures = v;
      return this;
    }

    public Builder retainCompleteSnapshots(int v) {
      retain = v;
      return this;
    }

    public Builder heartbeatInterval(Duration v) {
      heartbeatInterval = v;
      return this;
    }

    public Builder heartbeatTimeout(Duration v) {
      heartbeatTimeout = v;
      return this;
    }

    public Builder maxRecordedBytesPerSnapshot(long v) {
      maxRecordedBytes = v;
      return this;
    }

    public Builder rollbackPolicy(RollbackPolicy v) {
      rollbackPolicy = v;
      return this;
    }

    public Builder rollbackDeadline(Duration v) {
      rollbackDeadline = v;
      return this;
    }

    /** Requires this token on the Admin service (null = no check: loopback/development only). */
    public Builder adminToken(AdminToken v) {
      adminToken = v;
      return this;
    }

    /** Serves TLS (mutual TLS when {@link TlsFiles#clientCa()} is set); null = plaintext. */
    public Builder tls(TlsFiles v) {
      tls = v;
      return this;
    }

    /**
     * The address to bind (null = loopback unless workers authenticate; see {@link #bindHost()}).
     */
    public Builder host(String v) {
      host = v;
      return this;
    }

    /** Requires this token of workers on the worker-facing service (null = no check). */
    public Builder workerToken(AdminToken v) {
      workerToken = v;
      return this;
    }

    public Builder limits(WorkerLimits v) {
      limits = v;
      return this;
    }

    public Builder downloadTimeout(Duration v) {
      downloadTimeout = v;
      return this;
    }

    /** Removes workers lost for this long (zero = never). */
    public Builder forgetLostAfter(Duration v) {
      forgetLostAfter = v;
      return this;
    }

    public CoordinatorConfig build() {
      return new CoordinatorConfig(
          port,
          dataDir,
          snapshotInterval,
          snapshotTimeout,
          minPause,
          maxConcurrent,
          tolerableFailures,
          retain,
          heartbeatInterval,
          heartbeatTimeout,
          maxRecordedBytes,
          rollbackPolicy,
          rollbackDeadline,
          adminToken,
          tls,
          host,
          workerToken,
          limits,
          downloadTimeout,
          forgetLostAfter);
    }
  }
}
