package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TombstonePurgeTest {

  @Test
  void aRangeIsDueOnceEnoughDeletionsGathered() {
    TombstonePurge purge = new TombstonePurge(4);
    assertThat(purge.deleted(List.of(7L, 3L))).isEmpty();
    assertThat(purge.deleted(List.of())).isEmpty();
    assertThat(purge.deleted(List.of(9L))).isEmpty();
    assertThat(purge.deleted(List.of(5L, 12L)))
        .as("five deletions: the range covers them all")
        .contains(new TombstonePurge.Range(3, 12));
    assertThat(purge.deleted(List.of(20L, 21L, 22L))).as("it started over").isEmpty();
    assertThat(purge.deleted(List.of(23L))).contains(new TombstonePurge.Range(20, 23));
  }

  @Test
  void everyMustBePositive() {
    assertThatThrownBy(() -> new TombstonePurge(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
