package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.LocalSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ChannelFaultToleranceTest {

  @Test
  void connectionsCutAtRandomPointsLoseDuplicateOrReorderNothingAndCutsStayConsistent()
      throws Exception {
    ChannelOptions options =
        ChannelOptions.defaults().withReconnect(Duration.ofMillis(5), Duration.ofMillis(100));
    try (BankCluster bank =
            new BankCluster(
                BankCluster.complete("a", "b"),
                1_000_000,
                100_000_000,
                b -> b.channelOptions(options));
        FaultyProxy toA = new FaultyProxy(bank.workers.get("a").channelAddress(), 7, 20, 300_000);
        FaultyProxy toB = new FaultyProxy(bank.workers.get("b").channelAddress(), 8, 20, 300_000)) {
      bank.workers.get("a").updatePeers(Map.of("b", toB.address()));
      bank.workers.get("b").updatePeers(Map.of("a", toA.address()));
      bank.kickAll(64);

      long id = 0;
      long started = System.nanoTime();
      while (toA.cuts() + toB.cuts() < 40 || id < 10) {
        long sid = ++id;
        bank.workers.get(sid % 2 == 0 ? "a" : "b").startSnapshot(sid);
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(2))
            .until(() -> bank.complete(sid));
        assertThat(CutVerifier.verify(bank.cut(sid))).as("cut %d", sid).isEmpty();
        assertThat(bank.moneyIn(sid)).as("money in cut %d", sid).isEqualTo(bank.initialTotal);
        if (sid % 50 == 0) {
          System.out.printf(
              "%d ms, snapshot %d: cuts %d/%d, a->b %d, b->a %d, reconnects %d%n",
              (System.nanoTime() - started) / 1_000_000,
              sid,
              toA.cuts(),
              toB.cuts(),
              bank.workers.get("a").sentCount("b"),
              bank.workers.get("b").sentCount("a"),
              bank.workers.get("a").counters().reconnects());
        }
        assertThat(id).as("snapshots taken before the proxies made their cuts").isLessThan(2_000);
      }

      // Once traffic stops, every message must have arrived exactly once.
      bank.stopAll();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  bank.quiet()
                      && bank.workers.get("a").receivedCount("b")
                          == bank.workers.get("b").sentCount("a")
                      && bank.workers.get("b").receivedCount("a")
                          == bank.workers.get("a").sentCount("b")
                      && bank.liveBalances() == bank.initialTotal);
      assertThat(bank.violations())
          .as("gaps, duplicates or reordering seen by the application")
          .isEmpty();
      assertThat(bank.failed).isEmpty();
      long resent =
          bank.workers.values().stream().mapToLong(w -> w.counters().framesResent()).sum();
      long reconnects =
          bank.workers.values().stream().mapToLong(w -> w.counters().reconnects()).sum();
      assertThat(reconnects).as("streams reopened").isPositive();
      assertThat(resent).as("frames resent after reconnects").isPositive();
      assertThat(bank.workers.get("a").sentCount("b")).as("messages a->b").isGreaterThan(50_000);
    }
  }

  @Test
  void aPeerRestartedOnANewPortIsReachedThereAndARollbackRealignsTheChannel() {
    List<Long> seen = new CopyOnWriteArrayList<>();
    ChannelOptions options =
        ChannelOptions.defaults().withReconnect(Duration.ofMillis(10), Duration.ofMillis(200));
    Worker b =
        Worker.builder("b")
            .incoming("a")
            .stateHandler(new NoState())
            .messageHandler((f, seq, p) -> seen.add(seq))
            .build()
            .start();
    try (Worker a =
        Worker.builder("a")
            .outgoing("b")
            .stateHandler(new NoState())
            .messageHandler((f, s, p) -> {})
            .channelOptions(options)
            .peers(Map.of("b", b.channelAddress()))
            .build()
            .start()) {
      for (int i = 0; i < 100; i++) {
        a.send("b", new byte[8]);
      }
      await().until(() -> seen.size() == 100);
      b.close();
      for (int i = 0; i < 10; i++) {
        a.send("b", new byte[8]); // buffered while b is away
      }
      seen.clear();
      // the new b binds any free port and reports it, as a restarted worker re-joins with its
      // address
      b =
          Worker.builder("b")
              .incoming("a")
              .stateHandler(new NoState())
              .messageHandler((f, seq, p) -> seen.add(seq))
              .build()
              .start();
      // The new b knows nothing of epoch 0's positions: a rollback realigns both ends.
      LocalSnapshot aPiece =
          new LocalSnapshot(
              1, "a", new TreeMap<>(Map.of("b", 0L)), new TreeMap<>(), new TreeMap<>(), null);
      LocalSnapshot bPiece =
          new LocalSnapshot(
              1, "b", new TreeMap<>(), new TreeMap<>(Map.of("a", 0L)), new TreeMap<>(), null);
      for (Worker w : List.of(a, b)) {
        w.halt(1);
      }
      a.updatePeers(Map.of("b", b.channelAddress())); // as a recovery tells the halted workers
      a.restore(1, aPiece, new byte[0]);
      b.restore(1, bPiece, new byte[0]);
      a.resume(1);
      b.resume(1);
      assertThat(a.send("b", new byte[8])).isEqualTo(1);
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 1);
      assertThat(seen)
          .as("the 10 messages of epoch 0 are dropped by the rollback; epoch 1 starts at 1")
          .containsExactly(1L);
    } finally {
      b.close();
    }
  }
}
