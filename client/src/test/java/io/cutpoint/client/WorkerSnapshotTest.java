package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.cut.CutVerifier;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class WorkerSnapshotTest {

  @Test
  void snapshotsDuringBankTrafficAreConsistentCutsThatConserveMoney() {
    try (BankCluster bank =
        new BankCluster(
                BankCluster.complete("a", "b", "c"), 10_000, 200_000, UnaryOperator.identity())
            .connectDirectly()) {
      bank.kickAll(8);
      List<String> initiators = List.of("a", "b", "c");
      long snapshots = 12;
      for (long id = 1; id <= snapshots; id++) {
        long sid = id;
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    bank.accounts.values().stream().mapToLong(BankAccount::received).sum()
                        > sid * 300);
        bank.workers.get(initiators.get((int) (id % 3))).startSnapshot(id);
        await().atMost(Duration.ofSeconds(10)).until(() -> bank.complete(sid));
        assertThat(CutVerifier.verify(bank.cut(id))).as("cut %d", id).isEmpty();
        assertThat(bank.moneyIn(id)).as("money in cut %d", id).isEqualTo(bank.initialTotal);
      }
      long recorded =
          bank.completed.values().stream()
              .flatMap(m -> m.values().stream())
              .mapToLong(s -> s.cut().inFlightMessages())
              .sum();
      assertThat(recorded).as("messages recorded in transit over all cuts").isPositive();
      assertThat(bank.failed).isEmpty();
      assertThat(bank.violations()).isEmpty();
    }
  }
}
