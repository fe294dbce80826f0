package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When the warm-up calls the JIT settled, and how the tables say it. */
class WarmUpPhaseTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void settledWhenTheJitCompiledForUnderFivePercentOfTheLastCycle() {
    long[] wall = {SECOND, SECOND, SECOND};
    assertThat(WarmUpPhase.settled(new long[] {0, 0, 149_000_000L}, wall))
        .as("149 ms of 3 s, all in one round")
        .isTrue();
    assertThat(WarmUpPhase.settled(new long[] {50_000_000L, 50_000_000L, 50_000_000L}, wall))
        .as("150 ms of 3 s is 5%, not under it")
        .isFalse();
    assertThat(WarmUpPhase.settled(new long[] {SECOND, 0, 0}, wall))
        .as("one busy round keeps the cycle busy")
        .isFalse();
  }

  @Test
  void theTablesSayWhetherTheJitHadSettled() {
    assertThat(BenchReport.warmUpLine(new WarmUpPhase.Result(12.4, 9.25, 1_234, true)))
        .isEqualTo(
            "warm-up: 12 s of 1,234 unmeasured snapshots (4 workers, full mesh; idle, under"
                + " traffic, large state); the JIT compiled for 9.3 s of it and then settled\n");
    assertThat(BenchReport.warmUpLine(new WarmUpPhase.Result(45, 40, 5_000, false)))
        .contains("had not settled: the first rows were measured while it still compiled");
    assertThat(BenchReport.warmUpLine(new WarmUpPhase.Result(3, -1, 300, false)))
        .contains("does not report compilation time");
  }
}
