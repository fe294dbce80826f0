package io.cutpoint.ops.demo;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ops.format.Json;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.Channel;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The part of {@code demo --ha N} that the single coordinator does not have: it runs the {@link
 * DemoHaCluster}, follows the leader's store for committed snapshots (the event stream of one
 * coordinator ends with it), kills the leader, times each failover from the kill to the new
 * leader's first commit, and at the end checks that every snapshot committed before a kill is still
 * COMPLETE and conserves the money.
 *
 * <p>The main thread of the demo kills and checks; a thread of its own ({@code
 * cutpoint-demo-ha-poll}) follows the store.
 */
final class HaDemo implements AutoCloseable {
  static final int MIN_NODES = 2;
  static final int MAX_NODES = 5;
  private static final Duration LEADER_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);
  private static final Set<SnapshotStatus> ENDED =
      EnumSet.of(
          SnapshotStatus.SNAPSHOT_STATUS_COMPLETE,
          SnapshotStatus.SNAPSHOT_STATUS_ABORTED,
          SnapshotStatus.SNAPSHOT_STATUS_FAILED);

  private final DemoHaCluster cluster;
  private final DemoOutput output;
  private final DemoStats stats;
  private final ScheduledExecutorService poller;
  private final Set<Long> ended = ConcurrentHashMap.newKeySet();

  // The main thread's:
  private final Set<Long> committedBeforeKills = new TreeSet<>();
  private final List<Long> failoverMicros = new ArrayList<>();
  private long failoversTimedOut;
  private long lost = -1;

  private HaDemo(DemoHaCluster cluster, DemoOutput output, DemoStats stats) {
    this.cluster = cluster;
    this.output = output;
    this.stats = stats;
    this.poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cutpoint-demo-ha-poll");
              t.setDaemon(true);
              return t;
            });
  }

  /** Starts the cluster and waits until one coordinator leads. */
  static HaDemo start(int nodes, CoordinatorConfig config, DemoOutput output, DemoStats stats)
      throws Exception {
    DemoHaCluster cluster = DemoHaCluster.start(nodes, config);
    HaDemo demo = new HaDemo(cluster, output, stats);
    try {
      if (!until(() -> cluster.leaderStore().isPresent(), LEADER_TIMEOUT)) {
        throw new TimeoutException(
            "no coordinator of " + cluster.addresses() + " led after " + LEADER_TIMEOUT);
      }
      return demo;
    } catch (Exception | Error e) {
      demo.close();
      throw e;
    }
  }

  List<String> addresses() {
    return cluster.addresses();
  }

  /** Admin calls to whichever coordinator leads. */
  Channel adminChannel() {
    return cluster.adminChannel();
  }

  /**
   * States of committed pieces, read from the store of the coordinator that leads; between two
   * leaders, and when the leader goes away during the read, it waits for the next one (up to {@link
   * #LEADER_TIMEOUT}).
   */
  SnapshotChecker.StateSource states() {
    return (m, piece) -> {
      long deadline = System.nanoTime() + LEADER_TIMEOUT.toNanos();
      while (true) {
        Optional<SnapshotStore> store = cluster.leaderStore();
        String why = "no coordinator led";
        if (store.isPresent()) {
          try {
            return SnapshotChecker.fromStore(store.get()).state(m, piece);
          } catch (io.cutpoint.storage.StoreException e) {
            why = e.getMessage();
          }
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "cannot read snapshot "
                  + m.getSnapshotId()
                  + " within "
                  + LEADER_TIMEOUT
                  + ": "
                  + why);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      }
    };
  }

  /** From now on, hands every snapshot the leader's store ends to {@code watcher}. */
  void watch(SnapshotWatcher watcher) {
    poller.scheduleWithFixedDelay(() -> poll(watcher), 0, 300, TimeUnit.MILLISECONDS);
  }

  private void poll(SnapshotWatcher watcher) {
    try {
      Optional<SnapshotStore> store = cluster.leaderStore();
      if (store.isEmpty()) {
        return;
      }
      for (SnapshotManifest m : store.get().list(ENDED)) {
        if (ended.add(m.getSnapshotId())) {
          ended(watcher, m);
        }
      }
    } catch (StatusRuntimeException e) {
      // A check's Admin call met a kill: the snapshot stays unchecked (if it was committed before
      // a kill, checkSurvivors checks it at the end).
      output.event(
          DemoEvent.of(
              "error",
              "checking a snapshot: " + io.cutpoint.api.StatusText.of(e.getStatus()),
              Json.object().put("error", io.cutpoint.api.StatusText.of(e.getStatus()))));
    } catch (IllegalStateException | io.cutpoint.storage.StoreException e) {
      // The leader went away during the poll: the next poll asks the next leader.
    }
  }

  private void ended(SnapshotWatcher watcher, SnapshotManifest m) {
    switch (m.getStatus()) {
      case SNAPSHOT_STATUS_COMPLETE ->
          watcher.checkIfUnseen(m.getSnapshotId(), m.getTimings().getTotalMicros());
      case SNAPSHOT_STATUS_ABORTED -> {
        stats.snapshotsAborted.incrementAndGet();
        output.event(
            DemoEvent.of(
                "aborted",
                "snapshot " + m.getSnapshotId() + " aborted: " + m.getReason(),
                Json.object().id("snapshot_id", m.getSnapshotId()).put("reason", m.getReason())));
      }
      default -> {
        stats.snapshotsFailed.incrementAndGet();
        stats.snapshotsFailedUnexpected.incrementAndGet();
        output.event(
            DemoEvent.bad(
                "failed",
                "snapshot " + m.getSnapshotId() + " failed its cut check: " + m.getReason(),
                Json.object().id("snapshot_id", m.getSnapshotId()).put("reason", m.getReason())));
      }
    }
  }

  /**
   * Kills the leader once it has committed since it was elected, and waits for the next leader's
   * first commit. False when there is no such leader yet (try again soon).
   */
  boolean killLeader() throws Exception {
    long term = cluster.leaderTerm();
    Optional<SnapshotStore> store = cluster.leaderStore();
    if (term == 0 || store.isEmpty()) {
      return false;
    }
    List<SnapshotManifest> complete =
        store.get().list(EnumSet.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE));
    long newest = complete.stream().mapToLong(SnapshotManifest::getSnapshotId).max().orElse(0);
    if (newest == 0 || !committedSinceElected(newest)) {
      return false;
    }
    output.event(
        DemoEvent.of(
            "failover",
            "killing the leader of term "
                + term
                + " (port shut now, ZooKeeper session left to expire), then restarting it as a"
                + " standby",
            Json.object().put("term", term).id("newest_complete", newest)));
    long killedAt = System.nanoTime();
    long killed = cluster.crashLeader();
    if (killed == 0) {
      return false; // it lost the lead by itself meanwhile
    }
    complete.forEach(m -> committedBeforeKills.add(m.getSnapshotId()));
    newestBeforeKill = newest;
    long[] first = new long[1];
    boolean done =
        until(
            () -> {
              if (cluster.leaderTerm() <= killed) {
                return false;
              }
              Optional<SnapshotManifest> m = cluster.leaderStore().flatMap(s -> s.latestComplete());
              first[0] = m.map(SnapshotManifest::getSnapshotId).orElse(0L);
              return first[0] > newest;
            },
            FAILOVER_TIMEOUT);
    long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - killedAt);
    if (!done) {
      failoversTimedOut++;
      output.event(
          DemoEvent.bad(
              "failover",
              "no new leader committed within " + FAILOVER_TIMEOUT.toSeconds() + "s of the kill",
              Json.object().put("term", killed).put("ok", false)));
      return true;
    }
    failoverMicros.add(micros);
    output.event(
        DemoEvent.of(
            "leader",
            String.format(
                Locale.ROOT,
                "term %d leads; its first commit, snapshot %d, %.1fms after the kill",
                cluster.leaderTerm(),
                first[0],
                micros / 1000.0),
            Json.object()
                .put("term", cluster.leaderTerm())
                .id("snapshot_id", first[0])
                .put("failover_ms", micros / 1000.0)));
    return true;
  }

  private long newestBeforeKill;

  /** True when the leader committed {@code newest} after the last kill's newest snapshot. */
  private boolean committedSinceElected(long newest) {
    return newest > newestBeforeKill;
  }

  /**
   * Checks, through the leader, that every snapshot that was COMPLETE before a kill still is and
   * that its stored pieces conserve the money; returns how many are lost.
   */
  long checkSurvivors(SnapshotChecker checker) {
    long missing = 0;
    for (long id : committedBeforeKills) {
      Optional<SnapshotManifest> m = cluster.leaderStore().flatMap(s -> s.manifest(id));
      String why = null;
      if (m.isEmpty() || m.get().getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
        why = m.map(x -> "it is " + x.getStatus()).orElse("the store no longer has it");
      } else {
        SnapshotChecker.Outcome o;
        try {
          o = checker.check(id);
        } catch (StatusRuntimeException | IllegalStateException e) {
          o = null;
          why = "it cannot be read: " + e.getMessage();
        }
        if (o != null && o.kind() != SnapshotChecker.Kind.CONSERVED) {
          why = "it does not check: " + o.detail();
        }
      }
      if (why != null) {
        missing++;
        output.event(
            DemoEvent.bad(
                "lost",
                "snapshot " + id + " was COMPLETE before a kill, but " + why,
                Json.object().id("snapshot_id", id).put("detail", why)));
      }
    }
    lost = missing;
    output.event(
        DemoEvent.of(
            "survivors",
            committedBeforeKills.size()
                + " snapshots committed before a kill: "
                + (missing == 0 ? "all COMPLETE and conserving" : missing + " lost"),
            Json.object().put("checked", committedBeforeKills.size()).put("lost", missing)));
    return missing;
  }

  /** No failover timed out and no snapshot committed before a kill was lost. */
  boolean ok() {
    return failoversTimedOut == 0 && lost == 0;
  }

  /** The summary's lines about the coordinators. */
  String summaryText(long refused) {
    return String.format(
        Locale.ROOT,
        "  failovers:  %d (%d coordinators, %d timed out), kill to first commit p50 %.1fms, max %.1fms%n"
            + "  committed: %d snapshots committed before a kill, %d lost; %d commands refused for an old term%n",
        failoverMicros.size(),
        cluster.addresses().size(),
        failoversTimedOut,
        DemoStats.percentile(failoverMicros, 50) / 1000.0,
        DemoStats.percentile(failoverMicros, 100) / 1000.0,
        committedBeforeKills.size(),
        lost,
        refused);
  }

  /** Adds the coordinators' figures to the summary object. */
  void summary(Json.Obj o, long refused) {
    o.put("coordinators", cluster.addresses().size())
        .put("failovers", failoverMicros.size())
        .put("failovers_timed_out", failoversTimedOut)
        .put("p50_failover_ms", DemoStats.percentile(failoverMicros, 50) / 1000.0)
        .put("max_failover_ms", DemoStats.percentile(failoverMicros, 100) / 1000.0)
        .put("committed_before_kills", committedBeforeKills.size())
        .put("lost_snapshots", lost)
        .put("refused_old_term", refused);
  }

  /** Polls {@code condition} every 20 ms until it holds or {@code timeout} passes. */
  private static boolean until(java.util.function.BooleanSupplier condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return true;
        }
      } catch (RuntimeException e) {
        // a coordinator stopping under the call: ask again
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  /**
   * Stops polling, letting a check in progress finish (an interrupt in the middle of its reads
   * would fail it, and a failed check counts as a violation), then stops the cluster.
   */
  @Override
  public void close() {
    poller.shutdown();
    try {
      if (!poller.awaitTermination(10, TimeUnit.SECONDS)) {
        poller.shutdownNow();
      }
    } catch (InterruptedException e) {
      poller.shutdownNow();
      Thread.currentThread().interrupt();
    }
    cluster.close();
  }
}
