package io.cutpoint.ops.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ClusterView;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.ListSnapshotsRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerState;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills bank workers and the coordinator with {@code kill -9} at random moments, also during
 * snapshots and rollbacks, and checks after every recovery that nothing was lost: every process is
 * its own JVM, a supervisor restarts what dies (same worker id, same coordinator port and RocksDB
 * directory), and the coordinator's automatic policy (LATEST_COMPLETE) rolls the system back when a
 * worker is lost.
 *
 * <p>After every recovery: every worker restored exactly the state it recorded for the snapshot it
 * was restored from; the newest snapshots conserve the money; new snapshots complete in the new
 * epoch. At the end: traffic stops, and the live balances add up to the total; every COMPLETE
 * snapshot read back from the store passes {@code CutVerifier} and conserves the money.
 *
 * <p>A handful of kills by default; {@code -Dcutpoint.crash.kills=50} (or {@code -Pcrash-long}) for
 * the long run. The seed is printed and can be set with {@code -Dcutpoint.crash.seed}.
 */
class CrashRecoveryTest {

  private static final int KILLS = Integer.getInteger("cutpoint.crash.kills", 6);

  /**
   * Fixed unless {@code -Dcutpoint.crash.seed} is given, so that a failure can be replayed; printed
   * either way.
   */
  private static final long SEED = Long.getLong("cutpoint.crash.seed", 20_261_201L);

  private static final List<String> WORKERS = List.of("w1", "w2", "w3");
  private static final long BALANCE = 1_000_000;
  private static final long TOTAL = BALANCE * WORKERS.size();
  private static final Duration RECOVERY = Duration.ofSeconds(120);

  @TempDir Path tmp;

  private final CrashLedger ledger = new CrashLedger();
  private final Random random = new Random(SEED);
  private final List<String> violations = new ArrayList<>();
  private Supervisor supervisor;
  private ManagedChannel channel;
  private AdminGrpc.AdminBlockingStub admin;
  private int kills;
  private int recoveries;
  private int rollbacksSeen;
  private int conservationChecks;

  /**
   * Longer than the build's 5 minute default: a few minutes on a loaded machine (-Pcrash-long lifts
   * it).
   */
  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void killedWorkersAndCoordinatorsRecoverWithoutLosingMoneyOrConsistency() throws Exception {
    long startNanos = System.nanoTime();
    Path data = tmp.resolve("store");
    supervisor = new Supervisor();
    try {
      System.out.printf("crash test: seed %d, %d kills, workers %s%n", SEED, KILLS, WORKERS);
      supervisor.add(
          new ChildProcess(
              "coordinator",
              CrashCoordinatorMain.class,
              List.of(tmp.resolve("coordinator.port").toString(), data.toString(), "400", "60000"),
              tmp.resolve("coordinator.tmp"),
              ledger::accept));
      await().atMost(RECOVERY).until(ledger::coordinatorReady);
      int port = ledger.coordinatorPort(); // bound as port 0; restarts bind it again
      channel = NettyChannelBuilder.forAddress("localhost", port).usePlaintext().build();
      admin = AdminGrpc.newBlockingStub(channel);
      long seed = SEED;
      for (String w : WORKERS) {
        List<String> peers = new ArrayList<>(WORKERS);
        peers.remove(w);
        supervisor.add(
            new ChildProcess(
                w,
                CrashWorkerMain.class,
                List.of(
                    w,
                    "localhost:" + port,
                    String.join(",", peers),
                    String.valueOf(BALANCE),
                    String.valueOf(seed++)),
                tmp.resolve(w + ".tmp"),
                ledger::accept));
      }
      await().atMost(RECOVERY).ignoreExceptions().until(() -> healthy(0));
      long last = awaitNewComplete(0, 0);
      checkNewestSnapshots();

      int event = 0;
      while (kills < KILLS) {
        event++;
        long epochBefore = cluster().getEpoch();
        long newestBefore = newestComplete();
        String scenario = scenario(event);
        System.out.printf(
            "crash test: event %d (%s), kills so far %d, epoch %d%n",
            event, scenario, kills, epochBefore);
        switch (scenario) {
          case "worker at a random moment" -> {
            randomMoment();
            kill(randomWorker());
          }
          case "worker during a snapshot" -> {
            await()
                .atMost(RECOVERY)
                .pollInterval(Duration.ofMillis(2))
                .ignoreExceptions()
                .until(() -> cluster().getPendingSnapshotsCount() > 0);
            kill(randomWorker());
          }
          case "two workers, the second during the rollback" -> {
            String first = randomWorker();
            kill(first);
            awaitRollbackInProgress();
            String second =
                WORKERS.get(
                    (WORKERS.indexOf(first) + 1 + random.nextInt(WORKERS.size() - 1))
                        % WORKERS.size());
            kill(second);
          }
          case "coordinator at a random moment" -> {
            randomMoment();
            killCoordinator();
          }
          case "coordinator during a rollback" -> {
            kill(randomWorker());
            awaitRollbackInProgress();
            killCoordinator();
          }
          default -> throw new AssertionError(scenario);
        }
        boolean rolledBack = !scenario.equals("coordinator at a random moment");
        last = recover(epochBefore, newestBefore, rolledBack);
        recoveries++;
      }

      // Stop the traffic, let every message arrive, and count the money.
      for (String w : WORKERS) {
        supervisor.child(w).send("STOP");
      }
      await().atMost(RECOVERY).until(this::allQuiet);
      long live = ledger.quiet().values().stream().mapToLong(CrashLedger.Quiet::balance).sum();
      if (live != TOTAL) {
        violations.add(
            "after the run the live balances add up to "
                + live
                + ", not "
                + TOTAL
                + ": "
                + ledger.quiet());
      }
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      supervisor.shutdown();
      supervisor.child("coordinator").stop(30);
      for (String w : WORKERS) {
        supervisor.child(w).stop(10);
      }
      StoredCuts.Result stored = StoredCuts.check(data, TOTAL, ledger);
      violations.addAll(stored.violations());
      violations.addAll(ledger.restoreViolations());
      violations.addAll(ledger.problems());
      violations.addAll(supervisor.unexpectedDeaths());

      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
      List<Long> millis = new ArrayList<>(ledger.rollbackMillis());
      java.util.Collections.sort(millis);
      if (!millis.isEmpty()) {
        System.out.printf(
            "CRASH TEST ROLLBACKS: %d completed, duration min %d ms, median %d ms, max %d ms "
                + "(from the loss to every worker resumed, restart of the killed JVM included)%n",
            millis.size(),
            millis.get(0),
            millis.get(millis.size() / 2),
            millis.get(millis.size() - 1));
      }
      System.out.printf(
          "CRASH TEST RESULT: seed %d, kills %d, recoveries %d, rollbacks %d, restores %d, "
              + "complete snapshots read back %d (%d recorded in-flight messages), conservation checks %d, "
              + "newest snapshot %d, time %d s, violations %d%n",
          SEED,
          kills,
          recoveries,
          rollbacksSeen,
          ledger.restores().size(),
          stored.complete(),
          stored.inFlightMessages(),
          conservationChecks,
          last,
          seconds,
          violations.size());
      violations.forEach(v -> System.out.println("VIOLATION: " + v));
      assertThat(violations).isEmpty();
      assertThat(stored.complete()).isGreaterThan(recoveries);
      assertThat(stored.inFlightMessages()).isPositive();
    } catch (Throwable t) {
      System.out.println("crash test failed (seed " + SEED + "): " + t);
      System.out.println(supervisor.tails());
      violations.forEach(v -> System.out.println("VIOLATION: " + v));
      throw t;
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      supervisor.close();
    }
  }

  private static String scenario(int event) {
    if (event == 2 || event % 11 == 0) {
      return "coordinator at a random moment";
    }
    if (event == 4 || event % 13 == 0) {
      return "coordinator during a rollback";
    }
    if (event % 5 == 0) {
      return "two workers, the second during the rollback";
    }
    if (event % 3 == 0) {
      return "worker during a snapshot";
    }
    return "worker at a random moment";
  }

  /**
   * After the kills: the cluster is whole again in a newer epoch (when a worker died), every worker
   * restored what it recorded, and new snapshots complete and conserve the money.
   */
  private long recover(long epochBefore, long newestBefore, boolean rolledBack) {
    await()
        .atMost(RECOVERY)
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(() -> healthy(rolledBack ? epochBefore + 1 : epochBefore));
    long epoch = cluster().getEpoch();
    if (rolledBack) {
      rollbacksSeen += (int) (epoch - epochBefore);
      await()
          .atMost(RECOVERY)
          .until(() -> ledger.restoresInto(epoch).keySet().containsAll(WORKERS));
      Map<String, CrashLedger.Restored> restored = ledger.restoresInto(epoch);
      TreeSet<Long> targets = new TreeSet<>();
      restored.values().forEach(r -> targets.add(r.snapshot()));
      if (targets.size() != 1) {
        violations.add("epoch " + epoch + ": workers restored different snapshots " + restored);
      } else if (targets.first() < newestBefore) {
        // LATEST_COMPLETE: the newest complete snapshot before the kill is still stored (nothing is
        // pruned in this test), so nothing older may be the target.
        violations.add(
            "epoch "
                + epoch
                + ": rolled back to snapshot "
                + targets.first()
                + ", older than snapshot "
                + newestBefore
                + ", the newest complete one before the kill");
      } else if (targets.first() > newestBefore && newestBefore > 0) {
        // A snapshot that completed between our last look and the kill is a fine target too.
        System.out.printf(
            "crash test: epoch %d restored snapshot %d (newer than %d seen before the kill)%n",
            epoch, targets.first(), newestBefore);
      }
      violations.addAll(ledger.restoreViolations());
      System.out.printf("crash test: recovered in epoch %d from snapshot %s%n", epoch, targets);
    }
    // Traffic goes on: two new snapshots complete in this epoch, and money moved between them.
    long first = awaitNewComplete(newestBefore, epoch);
    long second = awaitNewComplete(first, epoch);
    await()
        .atMost(RECOVERY)
        .until(() -> ledger.hasAllPieces(second, WORKERS) && ledger.hasAllPieces(first, WORKERS));
    boolean moved =
        WORKERS.stream()
            .anyMatch(
                w ->
                    ledger.piece(first, w).orElseThrow().balance()
                        != ledger.piece(second, w).orElseThrow().balance());
    if (!moved) {
      violations.add(
          "no money moved between snapshots " + first + " and " + second + " in epoch " + epoch);
    }
    checkNewestSnapshots();
    return second;
  }

  /** Balances plus recorded in-flight amounts of the complete snapshots not checked yet. */
  private long checkedUpTo;

  private void checkNewestSnapshots() {
    List<SnapshotManifest> complete =
        admin
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .listSnapshots(
                ListSnapshotsRequest.newBuilder()
                    .addStatuses(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
                    .setPageSize(1000)
                    .build())
            .getSnapshotsList();
    long newest = checkedUpTo;
    for (SnapshotManifest m : complete) {
      long id = m.getSnapshotId();
      if (id <= checkedUpTo) {
        continue;
      }
      await().atMost(RECOVERY).until(() -> ledger.hasAllPieces(id, WORKERS));
      Optional<String> v = ledger.conservationViolation(id, WORKERS, TOTAL);
      v.ifPresent(violations::add);
      conservationChecks++;
      newest = Math.max(newest, id);
    }
    checkedUpTo = newest;
  }

  private boolean allQuiet() throws Exception {
    ledger.clearQuiet();
    for (String w : WORKERS) {
      supervisor.child(w).send("QUIET");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> ledger.quiet().size() == WORKERS.size());
    return ledger.quiet().values().stream().allMatch(CrashLedger.Quiet::quiet);
  }

  private void kill(String name) {
    System.out.printf("crash test: kill -9 %s%n", name);
    supervisor.kill(name);
    kills++;
  }

  private void killCoordinator() {
    ledger.coordinatorDown();
    kill("coordinator");
  }

  private void awaitRollbackInProgress() {
    await()
        .atMost(RECOVERY)
        .pollInterval(Duration.ofMillis(5))
        .ignoreExceptions()
        .until(() -> cluster().getRollbackInProgress());
  }

  /** A random moment in the next second and a half (the moment is the point, not a guess). */
  private void randomMoment() {
    Duration d = Duration.ofMillis(random.nextInt(1500));
    await().pollDelay(d).atMost(d.plusSeconds(1)).until(() -> true);
  }

  private String randomWorker() {
    return WORKERS.get(random.nextInt(WORKERS.size()));
  }

  private ClusterView cluster() {
    return admin
        .withDeadlineAfter(2, TimeUnit.SECONDS)
        .getCluster(GetClusterRequest.getDefaultInstance());
  }

  private boolean healthy(long minEpoch) {
    ClusterView v = cluster();
    return v.getEpoch() >= minEpoch
        && !v.getRollbackInProgress()
        && v.getWorkersCount() == WORKERS.size()
        && v.getWorkersList().stream()
            .allMatch(w -> w.getState() == WorkerState.WORKER_STATE_RUNNING);
  }

  private long newestComplete() {
    try {
      return admin
          .withDeadlineAfter(2, TimeUnit.SECONDS)
          .listSnapshots(
              ListSnapshotsRequest.newBuilder()
                  .addStatuses(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
                  .setPageSize(1)
                  .build())
          .getSnapshotsList()
          .stream()
          .mapToLong(SnapshotManifest::getSnapshotId)
          .max()
          .orElse(0);
    } catch (RuntimeException e) {
      return checkedUpTo;
    }
  }

  /** Waits for a complete snapshot newer than {@code after} taken in {@code epoch}; its id. */
  private long awaitNewComplete(long after, long epoch) {
    long[] found = new long[1];
    await()
        .atMost(RECOVERY)
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              for (SnapshotManifest m :
                  admin
                      .withDeadlineAfter(2, TimeUnit.SECONDS)
                      .listSnapshots(
                          ListSnapshotsRequest.newBuilder()
                              .addStatuses(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
                              .setPageSize(20)
                              .build())
                      .getSnapshotsList()) {
                if (m.getSnapshotId() > after && m.getEpoch() == epoch) {
                  found[0] =
                      found[0] == 0 ? m.getSnapshotId() : Math.min(found[0], m.getSnapshotId());
                }
              }
              return found[0] != 0;
            });
    return found[0];
  }
}
