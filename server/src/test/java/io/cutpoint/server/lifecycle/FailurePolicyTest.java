package io.cutpoint.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FailurePolicyTest {

  @Test
  void onlyFailuresThatSaySnapshotsCannotSucceedCount() {
    assertThat(FailurePolicy.counts(FailureReason.TIMEOUT)).isTrue();
    assertThat(FailurePolicy.counts(FailureReason.CUT_INVALID)).isTrue();
    assertThat(FailurePolicy.counts(FailureReason.LOCAL_FAILURE)).isTrue();
    assertThat(FailurePolicy.counts(FailureReason.STORE_ERROR)).isTrue();
    assertThat(FailurePolicy.counts(FailureReason.WORKER_LOST)).isFalse();
    assertThat(FailurePolicy.counts(FailureReason.TOPOLOGY_CHANGED)).isFalse();
    assertThat(FailurePolicy.counts(FailureReason.COORDINATOR)).isFalse();
  }

  @Test
  void exceedingTheTolerableNumberIsReportedOnceAndASuccessStartsOver() {
    FailurePolicy p = new FailurePolicy(1);
    assertThat(p.onFailure(FailureReason.TIMEOUT)).isFalse();
    assertThat(p.onFailure(FailureReason.WORKER_LOST)).isFalse();
    assertThat(p.onFailure(FailureReason.CUT_INVALID)).isTrue();
    assertThat(p.onFailure(FailureReason.TIMEOUT)).isFalse();
    p.onSuccess();
    assertThat(p.onFailure(FailureReason.TIMEOUT)).isFalse();
    assertThat(p.onFailure(FailureReason.TIMEOUT)).isTrue();
  }

  @Test
  void zeroTolerableFailuresReportsTheFirst() {
    assertThat(new FailurePolicy(0).onFailure(FailureReason.TIMEOUT)).isTrue();
  }
}
