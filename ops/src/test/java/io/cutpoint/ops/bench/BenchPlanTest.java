package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A row whose p99 is a target measures enough snapshots that its p99 is not simply its largest: in
 * the quick run, the 1 KiB rows of up to 8 workers take 100 where the others take 20.
 */
class BenchPlanTest {

  @Test
  void quickRowsWithAP99TargetTakeAHundredSnapshotsAndTheOthersTwenty() {
    BenchPlan quick = BenchPlan.quick();
    assertThat(quick.smallSamples(2)).isEqualTo(100);
    assertThat(quick.smallSamples(8)).isEqualTo(100);
    assertThat(quick.smallSamples(32)).isEqualTo(20);
    assertThat(quick.smallSamples(128)).isEqualTo(20);

    Samples twenty = new Samples();
    for (int i = 1; i <= 20; i++) {
      twenty.add(i);
    }
    assertThat(twenty.p99()).as("over 20 snapshots the p99 is the largest").isEqualTo(twenty.max());
    Samples hundred = new Samples();
    for (int i = 1; i <= quick.smallSamples(8); i++) {
      hundred.add(i);
    }
    assertThat(hundred.p99()).isLessThan(hundred.max());
  }

  @Test
  void samplesGivenOnTheCommandLineAreWhatEveryRowTakes() {
    BenchPlan five = BenchPlan.quick().with(null, null, 5, null, null, null, null, null);
    assertThat(five.smallSamples(2)).isEqualTo(5);
    assertThat(five.smallSamples(32)).isEqualTo(5);
    assertThat(BenchPlan.standard().smallSamples(8)).isEqualTo(100);
    assertThat(BenchPlan.standard().smallSamples(32)).isEqualTo(100);
  }
}
