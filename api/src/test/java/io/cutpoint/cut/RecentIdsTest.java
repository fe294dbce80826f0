package io.cutpoint.cut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RecentIdsTest {

  @Test
  void theOldestIdIsForgottenFirstAndRememberingAgainMakesAnIdYoung() {
    RecentIds ids = new RecentIds(3);
    ids.remember(1);
    ids.remember(2);
    ids.remember(3);
    ids.remember(1); // 1 is now the youngest
    ids.remember(4); // forgets 2, the oldest
    assertThat(ids.contains(2)).isFalse();
    assertThat(ids.contains(1)).isTrue();
    assertThat(ids.contains(3)).isTrue();
    assertThat(ids.contains(4)).isTrue();
    assertThat(ids.size()).isEqualTo(3);
  }

  @Test
  void aMemoryOfNothingIsRefused() {
    assertThatThrownBy(() -> new RecentIds(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
