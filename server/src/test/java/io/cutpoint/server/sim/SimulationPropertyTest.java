package io.cutpoint.server.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.sim.SimConfig;
import io.cutpoint.client.sim.SimFaults;
import io.cutpoint.client.sim.SimResult;
import io.cutpoint.client.sim.TopologyKind;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The production coordinator core (membership, snapshot lifecycle, rollback with the automatic
 * policy) and the production worker cores, under simulated transports and a simulated store, over
 * many seeded schedules per topology family, with broken streams and resends, workers lost and
 * restarted, the coordinator killed and restarted over its store, operator and automatic rollbacks
 * while snapshots are pending, and concurrent snapshots: every check of {@link Simulation} holds in
 * every schedule. 10,400 schedules in all, on two threads (each schedule is independent and seeded;
 * the results are taken in seed order, so the totals and the report do not depend on the threads).
 * A failure prints each failing seed with the line that replays it.
 */
class SimulationPropertyTest {

  static final int SCHEDULES_PER_KIND = 1_300;

  /** 60 transfers, 4 snapshots and 2 rollbacks in 200 ticks, channel delays of 1 to 10 ticks. */
  static final SimConfig CONFIG = new SimConfig(60, 4, 2, 200, 10, 0, 20, 1_000, 6, 0, 2);

  private static final Map<TopologyKind, SimResult.WorkerStats> TOTALS =
      new EnumMap<>(TopologyKind.class);
  private static final LongAdder SCHEDULES = new LongAdder();
  private static final LongAdder CPU_NANOS = new LongAdder();
  private static final LongAdder WALL_NANOS = new LongAdder();
  private static final LongAdder COMMITTED = new LongAdder();

  /** Threads that run the schedules of one topology family side by side. */
  static final int THREADS = 2;

  private static QuietLogs quiet;
  private static ExecutorService pool;

  @BeforeAll
  static void quietAndThreads() {
    quiet = new QuietLogs();
    AtomicInteger n = new AtomicInteger();
    pool =
        Executors.newFixedThreadPool(
            THREADS, r -> new Thread(r, "simulation-" + n.incrementAndGet()));
  }

  private static long cpuNanos() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  @ParameterizedTest
  @EnumSource(TopologyKind.class)
  void everyCommittedCutVerifiesAndConservesMoneyAndEveryChannelDeliversOncePerEpochInOrder(
      TopologyKind kind) throws Exception {
    List<SimResult> failures = new ArrayList<>();
    SimResult.WorkerStats totals = SimResult.WorkerStats.NONE;
    long committed = 0;
    long wallStart = System.nanoTime();
    SimResult[] results = new SimResult[SCHEDULES_PER_KIND];
    List<Future<Long>> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int first = t;
      threads.add(
          pool.submit(
              () -> {
                long cpuStart = cpuNanos();
                for (int i = first; i < SCHEDULES_PER_KIND; i += THREADS) {
                  long seed = kind.ordinal() * 1_000_003L + i;
                  results[i] =
                      Simulation.run(kind, seed, CONFIG, SimFaults.defaults(), Variant.NONE);
                }
                return cpuNanos() - cpuStart;
              }));
    }
    for (Future<Long> cpu : threads) {
      CPU_NANOS.add(cpu.get()); // also makes every result written visible here
    }
    for (SimResult r : results) {
      if (!r.ok()) {
        failures.add(r);
      }
      totals = totals.plus(r.workers());
      committed += r.stats().completedCuts();
      SCHEDULES.increment();
    }
    WALL_NANOS.add(System.nanoTime() - wallStart);
    COMMITTED.add(committed);
    TOTALS.put(kind, totals);
    List<SimResult> failed = failures;
    assertThat(failed)
        .withFailMessage(
            () ->
                failed.size()
                    + " of "
                    + SCHEDULES_PER_KIND
                    + " schedules failed:\n"
                    + failed.stream().limit(5).map(SimResult::describe).reduce("", String::concat))
        .isEmpty();
    // the schedules exercise what they claim to
    assertThat(committed).as("committed cuts").isGreaterThan(SCHEDULES_PER_KIND);
    assertThat(totals.crashes()).as("workers lost and restarted").isGreaterThan(100);
    assertThat(totals.rollbacks()).as("rollbacks finished").isGreaterThan(SCHEDULES_PER_KIND / 2);
    assertThat(totals.rollbacksOverPending()).as("rollbacks over pending snapshots").isPositive();
    assertThat(totals.maxPending()).as("snapshots pending at once").isGreaterThanOrEqualTo(2);
    assertThat(totals.coordinatorRestarts())
        .as("coordinator restarts")
        .isGreaterThan(SCHEDULES_PER_KIND / 5);
    assertThat(totals.restartsInRollback()).as("restarts during a rollback").isPositive();
    if (kind != TopologyKind.LONE_WORKER) {
      assertThat(totals.reconnects()).as("streams reopened").isGreaterThan(SCHEDULES_PER_KIND);
      assertThat(totals.resentFrames()).as("frames resent").isPositive();
      assertThat(totals.duplicateItems()).as("duplicates dropped by position").isPositive();
      assertThat(totals.oldEpochFrames())
          .as("frames of an old epoch after a rollback")
          .isPositive();
      assertThat(totals.notAnnounced()).as("frames of an epoch not announced yet").isPositive();
      assertThat(totals.replayed()).as("recorded messages replayed").isPositive();
      assertThat(totals.replayRaces()).as("new traffic parked ahead of a replay").isPositive();
      assertThat(totals.markersTakenAhead())
          .as("markers taken as they were read, ahead of data queued before them")
          .isPositive();
    }
  }

  @AfterAll
  static void report() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).as("simulation threads ended").isTrue();
    quiet.close();
    System.out.printf(
        "worker-level schedules: %d in %.1f s of CPU time (%d threads), %.1f s of wall time;"
            + " %d cuts committed%n",
        SCHEDULES.sum(), CPU_NANOS.sum() / 1e9, THREADS, WALL_NANOS.sum() / 1e9, COMMITTED.sum());
    TOTALS.forEach((k, s) -> System.out.println("  " + k + ": " + s));
  }
}
