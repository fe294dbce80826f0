package io.cutpoint.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import org.junit.jupiter.api.Test;

class BankTest {

  @Test
  void transfersDebitOnlyWhatWasSentAndCreditsArrive() {
    BankAccount a = new BankAccount("a", List.of("b"), 100, 10, 1);
    BankAccount b = new BankAccount("b", List.of("a"), 100, 10, 2);
    List<byte[]> wire = new ArrayList<>();
    long moved = 0;
    for (int i = 0; i < 50; i++) {
      moved +=
          a.transfer(
              (to, payload) -> {
                wire.add(payload);
                return wire.size();
              });
    }
    assertThat(a.balance()).isEqualTo(100 - moved);
    long seq = 0;
    for (byte[] p : wire) {
      b.onMessage("a", ++seq, p);
    }
    assertThat(a.balance() + b.balance()).isEqualTo(200);
    long before = a.balance();
    assertThat(a.transfer((to, payload) -> 0)).as("a dropped message is not debited").isZero();
    assertThat(a.balance()).isEqualTo(before);
  }

  @Test
  void balanceNeverGoesNegative() {
    BankAccount a = new BankAccount("a", List.of("b"), 3, 10, 1);
    for (int i = 0; i < 20; i++) {
      a.transfer((to, p) -> 1);
    }
    assertThat(a.balance()).isZero();
  }

  @Test
  void captureRestoreRoundTripsAndReportsTheSnapshot() {
    BankAccount a = new BankAccount("a", List.of("b"), 42, 10, 1);
    CaptureLog log = new CaptureLog();
    a.onCapture((id, state) -> log.record("a", id, state));
    byte[] state = a.captureState(7).state();
    assertThat(BankAccount.decodeBalance(state)).isEqualTo(42);
    assertThat(log.get("a", 7))
        .hasValueSatisfying(s -> assertThat(BankAccount.decodeBalance(s)).isEqualTo(42));
    a.onMessage("b", 1, BankAccount.encodeAmount(8));
    a.restore(state);
    assertThat(a.balance()).isEqualTo(42);
    assertThat(a.restores()).isEqualTo(1);
    assertThatThrownBy(() -> BankAccount.decodeBalance(new byte[3]))
        .hasMessageContaining("8 bytes");
  }

  @Test
  void conservationCheckCatchesALostOrDuplicatedTransfer() {
    Map<String, Long> balances = Map.of("a", 90L, "b", 95L);
    Map<String, List<Long>> inFlight = Map.of("a->b", List.of(10L), "b->a", List.of(5L));
    ConservationCheck.Result ok = ConservationCheck.check(balances, inFlight, 200);
    assertThat(ok.conserved()).isTrue();
    assertThat(ok.describe()).isEqualTo("200 = 185 in accounts + 15 in flight (2 transfers)");

    ConservationCheck.Result lost =
        ConservationCheck.check(balances, Map.of("a->b", List.of(10L)), 200);
    assertThat(lost.conserved()).isFalse();
    assertThat(lost.describe()).endsWith("expected 200 (off by -5)");
    ConservationCheck.Result twice =
        ConservationCheck.check(
            balances, Map.of("a->b", List.of(10L, 10L), "b->a", List.of(5L)), 200);
    assertThat(twice.conserved()).isFalse();
  }

  @Test
  void topologiesGiveEveryWorkerAWayInAndOut() {
    List<String> ids = Topologies.ids(6);
    Map<String, SortedSet<String>> ring = Topologies.outgoing(Topologies.Kind.RING, ids, 1);
    assertThat(ring.get("bank-6")).containsExactly("bank-1");
    assertThat(Topologies.channels(ring)).isEqualTo(6);
    assertThat(Topologies.channels(Topologies.outgoing(Topologies.Kind.MESH, ids, 1)))
        .isEqualTo(30);
    for (long seed = 0; seed < 50; seed++) {
      Map<String, SortedSet<String>> random =
          Topologies.outgoing(Topologies.Kind.RANDOM, ids, seed);
      for (String id : ids) {
        assertThat(random.get(id))
            .as("out of %s, seed %d", id, seed)
            .isNotEmpty()
            .doesNotContain(id);
        assertThat(Topologies.incoming(random, id)).as("into %s, seed %d", id, seed).isNotEmpty();
      }
      assertThat(random).isEqualTo(Topologies.outgoing(Topologies.Kind.RANDOM, ids, seed));
    }
    assertThatThrownBy(() -> Topologies.outgoing(Topologies.Kind.RING, Topologies.ids(1), 1))
        .hasMessageContaining("at least 2");
  }

  @Test
  void percentilesUseNearestRank() {
    List<Long> values = new ArrayList<>();
    for (long i = 1; i <= 100; i++) {
      values.add(i);
    }
    assertThat(DemoStats.percentile(values, 50)).isEqualTo(50);
    assertThat(DemoStats.percentile(values, 99)).isEqualTo(99);
    assertThat(DemoStats.percentile(List.of(7L), 99)).isEqualTo(7);
    assertThat(DemoStats.percentile(List.of(), 50)).isZero();
  }
}
