package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.cut.CutVerifier;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChannelFaultToleranceTest {

  @Test
  void connectionsCutAtRandomPointsLoseDuplicateOrReorderNothingAndCutsStayConsistent()
      throws Exception {
    ChannelOptions options = ChannelOptions.defaults()
        .withReconnect(Duration.ofMillis(5), Duration.ofMillis(100));
    try (BankCluster bank = new BankCluster(BankCluster.complete("a", "b"), 1_000_000, 100_000_000,
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
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(2))
            .until(() -> bank.complete(sid));
        assertThat(CutVerifier.verify(bank.cut(sid))).as("cut %d", sid).isEmpty();
        assertThat(bank.moneyIn(sid)).as("money in cut %d", sid).isEqualTo(bank.initialTotal);
        if (sid % 50 == 0) {
          System.out.printf("%d ms, snapshot %d: cuts %d/%d, a->b %d, b->a %d, reconnects %d%n",
              (System.nanoTime() - started) / 1_000_000, sid, toA.cuts(), toB.cuts(),
              bank.workers.get("a").sentCount("b"),
              bank.workers.get("b").sentCount("a"), bank.workers.get("a").counters().reconnects());
        }
        assertThat(id).as("snapshots taken before the proxies made their cuts").isLessThan(2_000);
      }

      // Once traffic stops, every message must have arrived exactly once.
      bank.stopAll();
      await().atMost(Duration.ofSeconds(60)).until(() -> bank.quiet()
          && bank.workers.get("a").receivedCount("b") == bank.workers.get("b").sentCount("a")
          && bank.workers.get("b").receivedCount("a") == bank.workers.get("a").sentCount("b")
          && bank.liveBalances() == bank.initialTotal);
      assertThat(bank.violations()).as("gaps, duplicates or reordering seen by the application")
          .isEmpty();
      assertThat(bank.failed).isEmpty();
      long resent = bank.workers.values().stream().mapToLong(w -> w.counters().framesResent()).sum();
      long reconnects = bank.workers.values().stream().mapToLong(w -> w.counters().reconnects()).sum();
      assertThat(reconnects).as("streams reopened").isPositive();
      assertThat(resent).as("frames resent after reconnects").isPositive();
      assertThat(bank.workers.get("a").sentCount("b")).as("messages a->b").isGreaterThan(50_000);
    }
  }
}
