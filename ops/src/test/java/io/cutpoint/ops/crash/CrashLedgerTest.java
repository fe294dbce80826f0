package io.cutpoint.ops.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The crash test's checks catch the faults they guard against. */
class CrashLedgerTest {

  private final CrashLedger ledger = new CrashLedger();

  private void pieces() {
    ledger.accept("a", "CP PIECE w=a s=5 e=1 bal=60 crc=11 inflight=10");
    ledger.accept("b", "CP PIECE w=b s=5 e=1 bal=30 crc=22 inflight=0");
  }

  @Test
  void aSnapshotWhoseMoneyAddsUpPassesAndOneThatLostMoneyIsCaught() {
    pieces();
    assertThat(ledger.conservationViolation(5, List.of("a", "b"), 100)).isEmpty();
    assertThat(ledger.conservationViolation(5, List.of("a", "b"), 101))
        .hasValueSatisfying(v -> assertThat(v).contains("snapshot 5 holds 100"));
    assertThat(ledger.conservationViolation(6, List.of("a"), 100))
        .hasValueSatisfying(v -> assertThat(v).contains("no piece reported by a"));
  }

  @Test
  void aRestoreOfTheRecordedStatePassesAndADifferentStateIsCaught() {
    pieces();
    ledger.accept("a", "CP RESTORED w=a s=5 e=2 bal=60 crc=11 inflight=10");
    assertThat(ledger.restoreViolations()).isEmpty();

    ledger.accept("b", "CP RESTORED w=b s=5 e=2 bal=31 crc=23 inflight=0");
    ledger.accept("a", "CP RESTORED w=a s=9 e=3 bal=60 crc=11 inflight=10");
    assertThat(ledger.restoreViolations())
        .hasSize(2)
        .anySatisfy(
            v -> assertThat(v).contains("b restored snapshot 5").contains("recorded balance 30"))
        .anySatisfy(v -> assertThat(v).contains("never reported recording that snapshot"));
    assertThat(ledger.restoresInto(2)).containsOnlyKeys("a", "b");
  }

  @Test
  void twoDifferentReportsOfOnePieceAreCaught() {
    pieces();
    ledger.accept("a", "CP PIECE w=a s=5 e=1 bal=61 crc=12 inflight=10");
    assertThat(ledger.problems())
        .singleElement()
        .satisfies(p -> assertThat(p).contains("two different pieces"));
  }

  @Test
  void otherLinesAreIgnored() {
    ledger.accept("a", "12:00:00.000 INFO  Worker - CP PIECE is not at the start");
    ledger.accept("a", "CP JOINED w=a e=0");
    assertThat(ledger.problems()).isEmpty();
    assertThat(ledger.joins("a")).isEqualTo(1);
  }

  @Test
  void theCoordinatorsRollbackLinesGiveTheDurations() {
    ledger.accept(
        "coordinator",
        "20:00:00.000 INFO  RollbackCoordinator - rollback to snapshot 7 COMPLETED "
            + "in epoch 3 after 1234 ms (automatic: worker w1 was lost); 3 workers resumed");
    assertThat(ledger.rollbackMillis()).containsExactly(1234L);
  }
}
