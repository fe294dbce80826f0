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
    assertThat(purge.deleted(List.of(5L, 6L)))
        .as("five deletions, no two more than 4 apart: one range over them all")
        .containsExactly(new TombstonePurge.Range(3, 9));
    assertThat(purge.deleted(List.of(20L, 21L, 22L))).as("it started over").isEmpty();
    assertThat(purge.deleted(List.of(23L))).containsExactly(new TombstonePurge.Range(20, 23));
  }

  @Test
  void anOldIdDeletedWithRecentOnesGetsARangeOfItsOwn() {
    TombstonePurge purge = new TombstonePurge(4);
    assertThat(purge.deleted(List.of(100L, 101L, 103L, 7L)))
        .as("a failure kept as history, deleted long after")
        .containsExactly(new TombstonePurge.Range(7, 7), new TombstonePurge.Range(100, 103));
    assertThat(purge.deleted(List.of(200L, 205L, 210L, 215L)))
        .as("gaps of 5 split too")
        .containsExactly(
            new TombstonePurge.Range(200, 200),
            new TombstonePurge.Range(205, 205),
            new TombstonePurge.Range(210, 210),
            new TombstonePurge.Range(215, 215));
  }

  @Test
  void everyMustBePositive() {
    assertThatThrownBy(() -> new TombstonePurge(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
