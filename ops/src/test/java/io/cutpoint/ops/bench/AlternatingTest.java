package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The order of interleaved throughput windows and the arithmetic of their pairs. */
class AlternatingTest {

  @Test
  void oneWarmUpOfEachSideThenPairsInAlternatingOrder() {
    List<String> order = new ArrayList<>();
    for (Alternating.Turn t : Alternating.schedule(3)) {
      order.add((t.warmUp() ? "w" : "") + (t.b() ? "B" : "A") + (t.warmUp() ? "" : t.pair()));
    }
    assertThat(order).containsExactly("wA", "wB", "A0", "B0", "B1", "A1", "A2", "B2");
  }

  @Test
  void eachPairGivesOneRatioAndWarmUpsCountNowhere() {
    List<String> measured = new ArrayList<>();
    // messages of the measured windows, in the order measured: A0 B0 B1 A1 A2 B2
    long[] messages = {100, 90, 120, 100, 0, 50};
    int[] next = {0};
    Alternating.Pairs p =
        Alternating.interleave(
            3,
            (b, warmUp) -> {
              measured.add(b ? "B" : "A");
              if (warmUp) {
                return new Alternating.Window(1_000_000, 1_000_000_000L, 1);
              }
              long m = messages[next[0]++];
              return new Alternating.Window(m, 1_000_000_000L, 2 * m);
            });

    assertThat(measured).containsExactly("A", "B", "A", "B", "B", "A", "A", "B");
    assertThat(p.ratios().values())
        .as("pair 2's A window counted nothing: no ratio")
        .containsExactly(0.9, 1.2);
    assertThat(Alternating.Pairs.rate(p.a())).isEqualTo(200 / 3.0);
    assertThat(Alternating.Pairs.rate(p.b())).isEqualTo(260 / 3.0);
    assertThat(Alternating.Pairs.perMessage(p.b())).isEqualTo(2.0);
  }

  @Test
  void cpuUnknownInAnyWindowLeavesNoCpuPerMessage() {
    Alternating.Pairs p =
        Alternating.interleave(
            2, (b, warmUp) -> new Alternating.Window(10, 1_000_000_000L, b ? -1 : 5));
    assertThat(Alternating.Pairs.perMessage(p.a())).isEqualTo(0.5);
    assertThat(Alternating.Pairs.perMessage(p.b())).isNaN();
  }
}
