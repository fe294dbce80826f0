package io.cutpoint.ops.demo.deadlock;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.AnalyzeRequest;
import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.DeadlockSet;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.ops.CliFailure;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.ops.admin.GrpcErrors;
import io.cutpoint.ops.format.Json;
import io.cutpoint.ops.local.ScratchDirs;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The deadlock demo: dining philosophers over the worker SDK on an embedded coordinator. Every
 * {@code interval} it takes a snapshot, asks {@code Admin.Analyze} about it and says what the cut
 * shows; it stops at the first deadlock (naming the cycle) or termination, or after {@code
 * duration}.
 *
 * <p>Each verdict is checked against the table's own ground truth ({@link DiningTable#stuck},
 * {@link DiningTable#finished}), read from the philosophers after the snapshot: both properties are
 * stable, so what a snapshot reports must still hold then. The run behaved as expected (exit 0)
 * when every reported deadlock is the whole table and the table is indeed stuck, every reported
 * termination is confirmed, and a table found stuck or finished at the end is reported so by a
 * snapshot taken after that.
 */
public final class DeadlockDemo {

  /** Settings of one run. */
  public record Settings(DiningTable.Options table, Duration interval, Duration duration) {
    public Settings {
      if (interval.isZero() || interval.isNegative()) {
        throw new IllegalArgumentException("--interval must be more than 0 for the deadlock demo");
      }
      if (duration.isZero() || duration.isNegative()) {
        throw new IllegalArgumentException("--duration must be more than 0");
      }
    }
  }

  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);
  private static final int SNAPSHOT_WAIT_MS = 15_000;

  private final Settings s;
  private final Printer out;
  private int snapshots;
  private int problems;
  private String outcome = "running";
  private ManagedChannel channel;

  public DeadlockDemo(Settings settings, PrintWriter out, boolean json) {
    this.s = settings;
    this.out = new Printer(out, json);
  }

  /** Runs the demo and returns the exit code. */
  public int run() throws InterruptedException {
    long started = System.currentTimeMillis();
    Path dir = null;
    CoordinatorServer server = null;
    DiningTable table = null;
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try {
      dir = Files.createTempDirectory("cutpoint-deadlock-demo-");
      server =
          CoordinatorServer.start(
              CoordinatorConfig.builder()
                  .port(0)
                  .dataDir(dir)
                  .snapshotInterval(Duration.ZERO)
                  .snapshotTimeout(Duration.ofSeconds(10))
                  .retainCompleteSnapshots(10)
                  .heartbeatInterval(Duration.ofMillis(500))
                  .heartbeatTimeout(Duration.ofSeconds(3))
                  .build(),
              registry);
      String target = "127.0.0.1:" + server.port();
      channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
      DiningTable.Options o = s.table();
      table = DiningTable.start(o.philosopherList(), target, JOIN_TIMEOUT);
      out.event(
          "started",
          o.philosophers()
              + " philosophers, fatal order chance "
              + o.fatalChance()
              + " per meal, "
              + (o.meals() == Philosopher.UNLIMITED ? "no meal limit" : o.meals() + " meals each")
              + ", seed "
              + o.seed()
              + ", coordinator "
              + target
              + " (embedded)",
          Json.object()
              .put("philosophers", o.philosophers())
              .put("fatal_chance", o.fatalChance())
              .put("meals", o.meals() == Philosopher.UNLIMITED ? 0L : o.meals())
              .put("seed", o.seed())
              .put("coordinator", target));
      table.begin();
      watch(table, System.currentTimeMillis());
      if (outcome.equals("running")) {
        finalCheck(table);
      }
      long meals = table.mealsEaten(READ_TIMEOUT);
      long fatal = table.node(table.size() - 1).fatalMeals();
      boolean ok = problems == 0;
      out.summary(
          (ok ? "OK" : "NOT OK")
              + ": "
              + outcome
              + "; "
              + snapshots
              + " snapshot(s) analysed, "
              + meals
              + " meals eaten, "
              + fatal
              + " meal(s) in the fatal order, "
              + (System.currentTimeMillis() - started) / 1000.0
              + "s",
          Json.object()
              .put("event", "summary")
              .put("ok", ok)
              .put("outcome", outcome)
              .put("snapshots", snapshots)
              .put("meals", meals)
              .put("fatal_meals", fatal)
              .put("problems", problems));
      return ok ? ExitCodes.OK : ExitCodes.FAILED;
    } catch (IOException e) {
      throw CliFailure.failed("cannot start the embedded coordinator: " + e.getMessage());
    } catch (TimeoutException e) {
      throw CliFailure.failed(e.getMessage());
    } catch (StatusRuntimeException e) {
      throw CliFailure.failed(GrpcErrors.describe(e, "the embedded coordinator", ""));
    } finally {
      if (table != null) {
        table.close();
      }
      closeChannel();
      if (server != null) {
        server.close();
      }
      registry.close();
      if (dir != null) {
        ScratchDirs.delete(dir);
      }
    }
  }

  private void watch(DiningTable table, long started)
      throws InterruptedException, TimeoutException {
    long end = started + s.duration().toMillis();
    long next = System.currentTimeMillis() + s.interval().toMillis();
    while (outcome.equals("running")) {
      long now = System.currentTimeMillis();
      if (now >= end) {
        return;
      }
      if (now < next) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(next, end) - now));
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        continue;
      }
      next = now + s.interval().toMillis();
      AnalyzeResponse r = snapshotAndAnalyze();
      if (r != null) {
        judge(r, table);
      }
    }
  }

  /**
   * At the end: the ground truth first, then a snapshot, which must show what was true before it.
   */
  private void finalCheck(DiningTable table) throws InterruptedException, TimeoutException {
    boolean stuck = table.stuck(READ_TIMEOUT);
    boolean finished = table.finished(READ_TIMEOUT);
    AnalyzeResponse r = snapshotAndAnalyze();
    if (r == null) {
      outcome = "no verdict: the final snapshot did not complete";
      problems++;
      return;
    }
    if (stuck
        && !r.getDeadlock().getDeadlocked()
        && r.getDeadlock().getUnblockedByInFlightCount() > 0) {
      // Two philosophers' requests cross: one in transit counts as a possible answer until
      // delivered.
      AnalyzeResponse again = snapshotAndAnalyze();
      r = again == null ? r : again;
    }
    judge(r, table);
    if (stuck && !r.getDeadlock().getDeadlocked()) {
      problem(
          "missed",
          "the table was stuck before snapshot "
              + r.getSnapshotId()
              + ", but its analysis found no deadlock",
          r.getSnapshotId());
    }
    if (finished && !r.getTermination().getTerminated()) {
      problem(
          "missed",
          "every philosopher had finished before snapshot "
              + r.getSnapshotId()
              + ", but its analysis says not terminated",
          r.getSnapshotId());
    }
    if (outcome.equals("running")) {
      outcome = "no deadlock in " + s.duration().toSeconds() + "s";
    }
  }

  private void judge(AnalyzeResponse r, DiningTable table)
      throws InterruptedException, TimeoutException {
    long id = r.getSnapshotId();
    int n = table.size();
    if (r.getDeadlock().getDeadlocked()) {
      DeadlockSet set = r.getDeadlock().getSets(0);
      boolean stuck = table.stuck(READ_TIMEOUT);
      boolean whole = r.getDeadlock().getSetsCount() == 1 && Verdicts.isWholeTable(set, n);
      out.event(
          "deadlock",
          Verdicts.deadlockLine(id, set) + (stuck ? "; the table is indeed stuck" : ""),
          Json.object()
              .id("snapshot_id", id)
              .put("cycle", set.getCycleList())
              .put("resources", Verdicts.resources(set))
              .put("workers", set.getWorkersList())
              .put("confirmed", stuck));
      outcome = "deadlock in snapshot " + id;
      if (!stuck) {
        problem(
            "phantom",
            "snapshot " + id + " reports a deadlock but the philosophers are not stuck",
            id);
      } else if (!whole) {
        problem("cycle", "snapshot " + id + " reports a deadlock that is not the whole table", id);
      }
      if (s.table().fatalChance() == 0) {
        problem("impossible", "a deadlock with the safe lock order", id);
      }
    } else if (r.getTermination().getTerminated()) {
      boolean finished = table.finished(READ_TIMEOUT);
      out.event(
          "terminated",
          "terminated in snapshot "
              + id
              + ": every philosopher is done"
              + " and no fork or request is in transit",
          Json.object().id("snapshot_id", id).put("confirmed", finished));
      outcome = "terminated in snapshot " + id;
      if (!finished) {
        problem(
            "phantom",
            "snapshot " + id + " reports termination but not every philosopher is done",
            id);
      }
    } else {
      out.event(
          "snapshot",
          Verdicts.quietLine(r),
          Json.object()
              .id("snapshot_id", id)
              .put("deadlocked", false)
              .put("terminated", false)
              .put("active", r.getTermination().getActiveWorkersList())
              .put(
                  "in_transit",
                  r.getTermination().getNonEmptyChannelsList().stream()
                      .map(c -> c.getFrom() + "->" + c.getTo())
                      .toList())
              .put("unblocked_by_in_flight", r.getDeadlock().getUnblockedByInFlightCount()));
    }
  }

  private void problem(String kind, String text, long snapshotId) {
    problems++;
    out.event(
        "problem",
        "PROBLEM: " + text,
        Json.object().put("kind", kind).id("snapshot_id", snapshotId).put("detail", text));
  }

  /** A snapshot, waited for; its analysis when it completed, else null (and a line saying why). */
  private AnalyzeResponse snapshotAndAnalyze() {
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(channel)
            .withDeadlineAfter(SNAPSHOT_WAIT_MS + 10_000L, TimeUnit.MILLISECONDS);
    TriggerSnapshotResponse t =
        admin.triggerSnapshot(
            TriggerSnapshotRequest.newBuilder()
                .setWait(true)
                .setWaitTimeoutMs(SNAPSHOT_WAIT_MS)
                .build());
    SnapshotStatus status = t.getManifest().getStatus();
    if (status != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      out.event(
          "snapshot",
          "snapshot "
              + t.getSnapshotId()
              + " did not complete ("
              + status
              + "): "
              + t.getManifest().getReason(),
          Json.object().id("snapshot_id", t.getSnapshotId()).put("status", status.name()));
      return null;
    }
    snapshots++;
    return admin.analyze(AnalyzeRequest.newBuilder().setSnapshotId(t.getSnapshotId()).build());
  }

  private void closeChannel() {
    if (channel == null) {
      return;
    }
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Lines for people, or one JSON object per line for machines. */
  private record Printer(PrintWriter out, boolean json) {
    void event(String type, String text, Json.Obj fields) {
      if (json) {
        out.println(
            Json.object()
                .put("event", type)
                .put("at_ms", System.currentTimeMillis())
                .putAll(fields));
      } else {
        out.println(text);
      }
      out.flush();
    }

    void summary(String text, Json.Obj obj) {
      out.println(json ? obj.toString() : text);
      out.flush();
    }
  }
}
