package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SamplesTest {

  @Test
  void percentilesAreNearestRankOverTheSortedSamples() {
    Samples s = new Samples();
    for (int i = 100; i >= 1; i--) {
      s.add(i);
    }
    assertThat(s.count()).isEqualTo(100);
    assertThat(s.p50()).isEqualTo(50);
    assertThat(s.p99()).isEqualTo(99);
    assertThat(s.max()).isEqualTo(100);
  }

  @Test
  void oneSampleIsEveryPercentileAndNoSampleIsNaN() {
    Samples s = new Samples();
    assertThat(s.p50()).isNaN();
    s.add(7.5);
    assertThat(s.p50()).isEqualTo(7.5);
    assertThat(s.p99()).isEqualTo(7.5);
  }

  @Test
  void percentilesOfTwoHundredSamplesPickTheRightRank() {
    Samples s = new Samples();
    for (int i = 1; i <= 200; i++) {
      s.add(i);
    }
    assertThat(s.p99()).isEqualTo(198);
  }
}
