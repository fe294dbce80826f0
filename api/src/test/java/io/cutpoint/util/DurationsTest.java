package io.cutpoint.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

  @Test
  void readsTheHumanFormsAndIso() {
    assertThat(Durations.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Durations.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(Durations.parse("1d")).isEqualTo(Duration.ofDays(1));
    assertThat(Durations.parse(" 10S ")).isEqualTo(Duration.ofSeconds(10));
    assertThat(Durations.parse("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Durations.parse("pt1m")).isEqualTo(Duration.ofMinutes(1));
    assertThat(Durations.parse("0")).isZero();
    assertThat(Durations.parse("0s")).isZero();
  }

  @Test
  void refusesWithOneLineThatQuotesTheValue() {
    assertThatThrownBy(() -> Durations.parse("soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'soon' is not a duration (e.g. 250ms, 1.5s, 1m30s, 2h, PT10S)");
    assertThatThrownBy(() -> Durations.parse("10"))
        .hasMessage("'10' is not a duration with a unit (e.g. 500ms, 10s, 1m)");
    assertThatThrownBy(() -> Durations.parse("-5s"))
        .hasMessage("'-5s' is not a duration that is not negative");
    assertThatThrownBy(() -> Durations.parse("PT-5S"))
        .hasMessage("'PT-5S' is not a duration that is not negative");
    assertThatThrownBy(() -> Durations.parse("1s1")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesWhatWouldOverflowDownstream() {
    assertThatThrownBy(() -> Durations.parse("9999999999999999s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'9999999999999999s' is too long (at most about 292 years)");
    assertThatThrownBy(() -> Durations.parse("PT9999999999999999S"))
        .hasMessageContaining("too long");
    assertThatThrownBy(() -> Durations.parse("PT99999999999999999999999S"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Durations.parse("106751d").toNanos()).isPositive();
  }

  @Test
  void printsForPeopleAndReadsBackWhatItPrints() {
    assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
    assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
    assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("1m30s");
    assertThat(Durations.format(Duration.ofMinutes(1))).isEqualTo("1m");
    assertThat(Durations.format(Duration.ofHours(2))).isEqualTo("2h");
    assertThat(Durations.format(Duration.ofHours(26).plusMinutes(3))).isEqualTo("26h3m");
    assertThat(Durations.format(Duration.ofNanos(1500))).isEqualTo("1500ns");
    assertThat(Durations.format(Duration.ofNanos(123_456_789))).isEqualTo("123.456789ms");
    for (Duration d :
        new Duration[] {
          Duration.ofMillis(1),
          Duration.ofMillis(61_001),
          Duration.ofNanos(123_456_789),
          Duration.ofHours(49).plusNanos(7),
          Durations.MAX
        }) {
      assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
    }
  }
}
