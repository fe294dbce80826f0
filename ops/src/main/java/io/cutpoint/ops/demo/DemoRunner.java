package io.cutpoint.ops.demo;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.admin.GrpcErrors;
import io.cutpoint.ops.format.Human;
import io.cutpoint.ops.format.Json;
import io.cutpoint.ops.local.ScratchDirs;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs the bank demo: a coordinator (embedded, or the one at {@code --connect}), the bank workers,
 * traffic, periodic crashes with rollback, a conservation check of every committed snapshot, and a
 * final check of the quiet system.
 */
public final class DemoRunner {

  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration QUIET_TIMEOUT = Duration.ofSeconds(20);

  private final DemoOptions o;
  private final DemoStats stats = new DemoStats();
  private final CaptureLog captures = new CaptureLog();
  private final BlockedReport blocked = new BlockedReport();
  private final Random random;
  private volatile DemoCluster cluster;
  private volatile SnapshotWatcher watcher;
  private volatile String target = "";
  private volatile long startedMs;
  private volatile long trafficStartedMs;
  private final CoordinatorAccess access;
  private io.cutpoint.ops.admin.AdminClient adminClient;
  private io.grpc.Channel channel;
  private DemoOutput output;
  private boolean rollbackSupported;

  /** Port of the web console (0 = any free one), or -1 for none. */
  private int webPort = -1;

  private io.cutpoint.ops.http.HttpEndpoint web;

  /** The coordinators of {@code --ha}, null without. */
  private HaDemo ha;

  public DemoRunner(DemoOptions options) {
    this(options, CoordinatorAccess.plaintext());
  }

  /**
   * @param access how to reach the {@code --connect} coordinator (the embedded one is plaintext)
   */
  public DemoRunner(DemoOptions options, CoordinatorAccess access) {
    this.o = options;
    this.access = options.connect() == null ? CoordinatorAccess.plaintext() : access;
    this.random = new Random(options.seed());
  }

  /** Serves the embedded coordinator's console on 127.0.0.1:{@code port} (0 = any free port). */
  public void serveWeb(int port) {
    this.webPort = port;
  }

  public DemoStats stats() {
    return stats;
  }

  /** Runs the demo to its end; returns the exit code (0 only if nothing was violated). */
  public int run(DemoOutput out) throws InterruptedException {
    Thread main = Thread.currentThread();
    java.util.concurrent.CountDownLatch cleanedUp = new java.util.concurrent.CountDownLatch(1);
    // Ctrl-C: stop the run and let it clean up (workers, coordinator, temporary store) before the
    // JVM ends.
    Thread hook =
        new Thread(
            () -> {
              main.interrupt();
              try {
                cleanedUp.await(20, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "cutpoint-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return runDemo(out);
    } finally {
      cleanedUp.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running and waits for the countDown above.
      }
    }
  }

  private int runDemo(DemoOutput out) throws InterruptedException {
    this.output = out;
    startedMs = System.currentTimeMillis();
    Path tempDir = null;
    CoordinatorServer server = null;
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ConservationCheck.Result finalCheck = null;
    try {
      SnapshotChecker.StateSource states;
      if (o.ha() > 0) {
        Path dir = tempDir = Files.createTempDirectory("cutpoint-demo-");
        ha = HaDemo.start(o.ha(), coordinatorConfig(dir), output, stats);
        target = String.join(",", ha.addresses());
        states = ha.states();
        channel = ha.adminChannel();
      } else if (o.connect() == null) {
        Path dir = o.dataDir();
        if (dir == null) {
          dir = tempDir = Files.createTempDirectory("cutpoint-demo-");
        }
        server = CoordinatorServer.start(coordinatorConfig(dir), registry);
        target = "127.0.0.1:" + server.port();
        if (webPort >= 0) {
          try {
            web =
                io.cutpoint.ops.http.HttpEndpoint.start(
                    "127.0.0.1", webPort, registry, server.adminChannel(), null, false);
          } catch (RuntimeException e) {
            throw CliFailure.failed(
                "cannot serve the console on port " + webPort + ": " + e.getMessage());
          }
          String url = "http://127.0.0.1:" + web.port() + "/";
          output.event(DemoEvent.of("web", "console at " + url, Json.object().put("url", url)));
        }
        states = SnapshotChecker.fromStore(server.context().store());
      } else {
        target = leaderOf(o.connect());
        states = SnapshotChecker.fromCaptures(captures);
      }
      if (ha == null) {
        adminClient =
            new io.cutpoint.ops.admin.AdminClient(
                target, Duration.ofSeconds(10), access.transport(), access.adminToken());
        channel = adminClient.channel();
      }
      rollbackSupported = probeRollback();
      DemoCluster c =
          new DemoCluster(
              o,
              ha != null ? ha.addresses() : o.connect() != null ? o.connect() : List.of(target),
              access.workers(),
              captures);
      checker = new SnapshotChecker(this::admin, states, new HashSet<>(c.ids()), o.expectedTotal());
      watcher = new SnapshotWatcher(channel, checker, stats, output);
      if (ha == null) {
        watcher.start();
      } else {
        ha.watch(watcher);
      }
      cluster = c;
      c.start(JOIN_TIMEOUT);
      output.event(
          DemoEvent.of(
              "started",
              o.workers()
                  + " workers ("
                  + topologyText(c)
                  + "), "
                  + o.expectedTotal()
                  + " in the bank, coordinator "
                  + target
                  + (o.ha() > 0 ? " (embedded, highly available)" : "")
                  + (o.connect() == null && o.ha() == 0 ? " (embedded)" : ""),
              Json.object()
                  .put("workers", o.workers())
                  .put("topology", o.topology().name().toLowerCase(Locale.ROOT))
                  .put("channels", Topologies.channels(c.outgoing()))
                  .put("total", o.expectedTotal())
                  .put("coordinator", target)
                  .put("rollback_supported", rollbackSupported)));
      c.trafficOn(true);
      runFor(c);
      finalCheck = finish(c);
    } catch (IOException e) {
      throw CliFailure.failed("cannot start the embedded coordinator: " + e.getMessage());
    } catch (TimeoutException | IllegalStateException e) {
      throw CliFailure.failed(e.getMessage());
    } catch (StatusRuntimeException e) {
      throw CliFailure.failed(GrpcErrors.describe(e, target, ""));
    } catch (InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) { // the in-process ZooKeeper or S3 server of --ha
      throw CliFailure.failed("cannot start the embedded coordinators: " + e.getMessage());
    } finally {
      close(server, registry, tempDir);
    }
    double seconds = (System.currentTimeMillis() - startedMs) / 1000.0;
    Json.Obj summary = stats.summary(o, transfers, sendErrors, finalCheck, seconds);
    if (ha != null) {
      ha.summary(summary, refusedOldTerm);
    }
    output.summary(summaryText(finalCheck, seconds), summary.put("ok", finalOk(finalCheck)));
    return finalOk(finalCheck) ? ExitCodes.OK : ExitCodes.FAILED;
  }

  private boolean finalOk(ConservationCheck.Result finalCheck) {
    return stats.clean() && finalCheck.conserved() && quietAtEnd && (ha == null || ha.ok());
  }

  /**
   * The coordinator of {@code --connect}, or the leader of {@code --coordinators}: the Admin calls
   * go there, the workers follow the leader by themselves.
   */
  private String leaderOf(List<String> coordinators) {
    if (coordinators.size() == 1) {
      return coordinators.get(0);
    }
    return io.cutpoint.ops.admin.LeaderProbe.find(
        coordinators, Duration.ofSeconds(10), access.transport(), access.adminToken());
  }

  private long refusedOldTerm;
  private SnapshotChecker checker;

  private long transfers;
  private long sendErrors;
  private boolean quietAtEnd;

  private CoordinatorConfig coordinatorConfig(Path dir) {
    return CoordinatorConfig.builder()
        .port(0)
        .dataDir(dir)
        .snapshotInterval(o.interval())
        .snapshotTimeout(Duration.ofSeconds(10))
        // --ha checks at the end that every snapshot committed before a kill is still there
        .retainCompleteSnapshots(o.ha() > 0 ? 10_000 : 20)
        .heartbeatInterval(Duration.ofMillis(500))
        .heartbeatTimeout(Duration.ofSeconds(3))
        .build();
  }

  AdminGrpc.AdminBlockingStub admin() {
    return AdminGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  /**
   * Rollback to snapshot 0 is invalid: a coordinator with rollback says so, one without says
   * UNIMPLEMENTED. The first Admin call: a coordinator that is down or refuses the token ends the
   * run.
   */
  private boolean probeRollback() {
    try {
      admin().rollback(RollbackRequest.newBuilder().setSnapshotId(0).build());
      return true;
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      if (code == Status.Code.UNAVAILABLE
          || code == Status.Code.UNAUTHENTICATED
          || code == Status.Code.PERMISSION_DENIED) {
        throw e; // unreachable, or not allowed: nothing else would work either
      }
      return code != Status.Code.UNIMPLEMENTED;
    }
  }

  private void runFor(DemoCluster c) throws InterruptedException {
    long trafficStarted = System.currentTimeMillis();
    trafficStartedMs = trafficStarted;
    long end = trafficStarted + o.duration().toMillis();
    long every = o.crashEvery().toMillis();
    long nextCrash = every > 0 ? trafficStarted + every : Long.MAX_VALUE;
    long triggerEvery = o.connect() != null ? o.interval().toMillis() : 0;
    long nextTrigger =
        triggerEvery > 0 ? System.currentTimeMillis() + triggerEvery : Long.MAX_VALUE;
    while (true) {
      long now = System.currentTimeMillis();
      if (now >= end) {
        return;
      }
      if (now >= nextCrash) {
        nextCrash = crash(c) ? Math.max(now + every, System.currentTimeMillis()) : now + 500;
      }
      if (now >= nextTrigger) {
        triggerAndSayWhatBlocks();
        nextTrigger = now + triggerEvery;
      }
      long wake = Math.min(end, Math.min(nextCrash, nextTrigger));
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.max(1, Math.min(100, wake - now))));
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private boolean warnedNoRollback;

  /**
   * Crashes a random worker, replaces it and rolls back; false when there is nothing to roll back
   * to yet.
   */
  private boolean crash(DemoCluster c) throws InterruptedException {
    if (ha != null) {
      try {
        return ha.killLeader();
      } catch (InterruptedException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw CliFailure.failed("restarting a killed coordinator: " + e.getMessage());
      }
    }
    if (!rollbackSupported) {
      if (!warnedNoRollback) {
        warnedNoRollback = true;
        output.event(
            DemoEvent.of(
                "crash",
                "crashes skipped: the coordinator at " + target + " cannot roll back",
                Json.object().put("skipped", true)));
      }
      return true;
    }
    long latest =
        admin().getCluster(GetClusterRequest.getDefaultInstance()).getLatestCompleteSnapshot();
    if (latest == 0) {
      return false;
    }
    int victim = random.nextInt(o.workers());
    String id = c.ids().get(victim);
    c.trafficOn(false);
    watcher.recoveryStarted(System.currentTimeMillis());
    stats.crashes.incrementAndGet();
    output.event(
        DemoEvent.of(
            "crash",
            id + " crashed; a replacement with an empty account joins",
            Json.object().put("worker", id)));
    try {
      c.crashAndReplace(victim, JOIN_TIMEOUT, random.nextLong());
      latest =
          admin().getCluster(GetClusterRequest.getDefaultInstance()).getLatestCompleteSnapshot();
      RollbackResponse r =
          AdminGrpc.newBlockingStub(channel)
              .withDeadlineAfter(45, TimeUnit.SECONDS)
              .rollback(
                  RollbackRequest.newBuilder()
                      .setSnapshotId(latest)
                      .setWait(true)
                      .setWaitTimeoutMs(30_000)
                      .setReason("the demo crashed " + id + " and replaced it")
                      .build());
      if (!r.getCompleted()) {
        recoveryFailed(
            id, "rollback to snapshot " + r.getSnapshotId() + " did not complete in 30s");
        return true;
      }
      stats.rollbacks.incrementAndGet();
      stats.rollbackTook(r.getDurationMicros());
      output.event(
          DemoEvent.of(
              "rollback",
              "rolled back to snapshot "
                  + r.getSnapshotId()
                  + " in "
                  + Human.micros(r.getDurationMicros())
                  + " (epoch "
                  + r.getEpoch()
                  + ")",
              Json.object()
                  .id("snapshot_id", r.getSnapshotId())
                  .id("epoch", r.getEpoch())
                  .put("duration_ms", r.getDurationMicros() / 1000.0)));
      verifyRecovery(c, id, r.getSnapshotId());
    } catch (StatusRuntimeException e) {
      recoveryFailed(id, GrpcErrors.describe(e, target, "rollback"));
    } catch (TimeoutException | IllegalStateException e) {
      recoveryFailed(id, e.getMessage());
    } finally {
      watcher.recoveryEnded(System.currentTimeMillis());
      c.trafficOn(true);
    }
    return true;
  }

  private void verifyRecovery(DemoCluster c, String id, long snapshotId)
      throws InterruptedException, TimeoutException {
    boolean quiet = c.quiesce(QUIET_TIMEOUT);
    Map<String, Long> balances = c.balances(Duration.ofSeconds(5));
    ConservationCheck.Result r = ConservationCheck.check(balances, Map.of(), o.expectedTotal());
    if (quiet && r.conserved()) {
      stats.recoveriesOk.incrementAndGet();
      output.event(
          DemoEvent.of(
              "recovered",
              "every transfer replayed, " + r.describe(),
              Json.object()
                  .put("worker", id)
                  .id("snapshot_id", snapshotId)
                  .put("total", r.total())
                  .put("ok", true)));
    } else {
      recoveryFailed(id, (quiet ? "" : "channels did not drain; ") + r.describe());
    }
  }

  private void recoveryFailed(String id, String why) {
    stats.recoveriesFailed.incrementAndGet();
    output.event(
        DemoEvent.bad(
            "recovery",
            "recovery of " + id + " failed: " + why,
            Json.object().put("worker", id).put("ok", false).put("detail", why)));
  }

  /** Stops traffic, drains the channels, takes one last snapshot and checks the quiet system. */
  private ConservationCheck.Result finish(DemoCluster c)
      throws InterruptedException, TimeoutException {
    c.trafficOn(false);
    boolean quiet = c.quiesce(QUIET_TIMEOUT);
    TriggerSnapshotResponse last = triggerAndWait();
    if (last != null && last.getManifest().getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      watcher.checkIfUnseen(last.getSnapshotId(), last.getManifest().getTimings().getTotalMicros());
    }
    Map<String, Long> balances = c.balances(Duration.ofSeconds(5));
    transfers = c.transfers();
    sendErrors = c.sendErrors();
    refusedOldTerm = c.refusedOldTerm();
    if (ha != null) {
      ha.checkSurvivors(checker);
    }
    ConservationCheck.Result r = ConservationCheck.check(balances, Map.of(), o.expectedTotal());
    quietAtEnd = quiet;
    output.event(
        (r.conserved() && quiet
                ? DemoEvent.of("final", "", null)
                : DemoEvent.bad("final", "", null))
            .withText(
                (quiet ? "" : "channels did not drain; ")
                    + "accounts after the run: "
                    + r.describe()
                    + " "
                    + balances,
                Json.object()
                    .put("total", r.total())
                    .put("conserved", r.conserved())
                    .put("quiet", quiet)));
    return r;
  }

  /** Takes a snapshot through the Admin service and waits for it; retries while another runs. */
  private TriggerSnapshotResponse triggerAndWait() throws InterruptedException {
    for (int attempt = 0; attempt < 20; attempt++) {
      try {
        return AdminGrpc.newBlockingStub(channel)
            .withDeadlineAfter(20, TimeUnit.SECONDS)
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build());
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (code != Status.Code.FAILED_PRECONDITION && code != Status.Code.RESOURCE_EXHAUSTED) {
          return null;
        }
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    return null;
  }

  /**
   * {@code --connect}: starts a snapshot, and says once per change what keeps the coordinator from
   * starting them (a worker lost by an earlier application, say), naming the workers.
   */
  private void triggerAndSayWhatBlocks() {
    String refusal = null;
    try {
      admin().triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      refusal = GrpcErrors.describe(e, target, "snapshot");
    }
    try {
      blocked
          .observe(admin().getCluster(GetClusterRequest.getDefaultInstance()), refusal)
          .ifPresent(output::event);
    } catch (StatusRuntimeException e) {
      // The next trigger asks again.
    }
  }

  private void close(CoordinatorServer server, PrometheusMeterRegistry registry, Path tempDir) {
    if (watcher != null) {
      watcher.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (adminClient != null) {
      adminClient.close();
    }
    if (web != null) {
      web.close();
    }
    if (server != null) {
      server.close();
    }
    if (ha != null) {
      ha.close();
    }
    registry.close();
    if (tempDir != null) {
      ScratchDirs.delete(tempDir);
    }
  }

  private String topologyText(DemoCluster c) {
    return o.topology().name().toLowerCase(Locale.ROOT)
        + ", "
        + Topologies.channels(c.outgoing())
        + " channels";
  }

  /** Lines of the live view. */
  public List<String> statusLines() {
    List<String> lines = new ArrayList<>();
    long since = trafficStartedMs;
    long elapsed =
        since == 0 ? 0 : Math.min(o.duration().toMillis(), System.currentTimeMillis() - since);
    DemoCluster c = cluster;
    lines.add(
        String.format(
            Locale.ROOT,
            "cutpoint demo  %d workers (%s)  coordinator %s  %.0fs / %ds",
            o.workers(),
            c == null ? o.topology().name().toLowerCase(Locale.ROOT) : topologyText(c),
            target,
            elapsed / 1000.0,
            o.duration().toSeconds()));
    if (c != null) {
      StringBuilder b = new StringBuilder("accounts ");
      c.balancesNow().forEach((id, bal) -> b.append(' ').append(id).append('=').append(bal));
      lines.add(b.toString());
      lines.add("transfers " + c.transfers());
    }
    lines.add(
        String.format(
            Locale.ROOT,
            "snapshots %d complete, %d conserved, %d violated, %d aborted, %d failed   p50 %.1fms  p99 %.1fms",
            stats.snapshotsCompleted.get(),
            stats.snapshotsChecked.get() - stats.conservationViolations.get(),
            stats.conservationViolations.get(),
            stats.snapshotsAborted.get(),
            stats.snapshotsFailed.get(),
            stats.snapshotPercentileMs(50),
            stats.snapshotPercentileMs(99)));
    lines.add(
        "crashes "
            + stats.crashes.get()
            + "  rollbacks "
            + stats.rollbacks.get()
            + "  recoveries ok "
            + stats.recoveriesOk.get()
            + (stats.recoveriesFailed.get() > 0 ? "  FAILED " + stats.recoveriesFailed.get() : ""));
    SnapshotWatcher w = watcher;
    lines.add("last check: " + (w == null ? "-" : w.lastCheck()));
    return lines;
  }

  private String summaryText(ConservationCheck.Result finalCheck, double seconds) {
    boolean ok = finalOk(finalCheck);
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "Summary: %.1fs, %d workers (%s), %d transfers%n",
            seconds,
            o.workers(),
            o.topology().name().toLowerCase(Locale.ROOT),
            transfers));
    b.append(
        String.format(
            Locale.ROOT,
            "  snapshots:  %d completed, %d checked (%d violated), %d not covering every account, %d aborted, %d failed (%d outside a recovery)%n",
            stats.snapshotsCompleted.get(),
            stats.snapshotsChecked.get(),
            stats.conservationViolations.get(),
            stats.snapshotsPartial.get(),
            stats.snapshotsAborted.get(),
            stats.snapshotsFailed.get(),
            stats.snapshotsFailedUnexpected.get()));
    b.append(
        String.format(
            Locale.ROOT,
            "  latency:    p50 %.1fms, p99 %.1fms%n",
            stats.snapshotPercentileMs(50),
            stats.snapshotPercentileMs(99)));
    b.append(
        String.format(
            Locale.ROOT,
            "  recovery:   %d crashes, %d rollbacks (p50 %.1fms), %d recoveries ok, %d failed%n",
            stats.crashes.get(),
            stats.rollbacks.get(),
            stats.rollbackPercentileMs(50),
            stats.recoveriesOk.get(),
            stats.recoveriesFailed.get()));
    if (ha != null) {
      b.append(ha.summaryText(refusedOldTerm));
    }
    b.append("  final:      ")
        .append(quietAtEnd ? "" : "channels did not drain; ")
        .append(finalCheck.describe())
        .append('\n');
    b.append("  result:     ")
        .append(
            ok
                ? "OK: every checked snapshot conserved the money"
                : stats.nothingWrongButNothingChecked() && finalCheck.conserved() && quietAtEnd
                    ? "FAILED: no snapshot was checked"
                        + (blocked.blocking() ? " (see the line 'blocked')" : "")
                    : "VIOLATED: see the lines marked !!")
        .append('\n');
    return b.toString();
  }
}
