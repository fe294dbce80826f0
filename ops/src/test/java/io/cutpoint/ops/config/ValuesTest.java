package io.cutpoint.ops.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ValuesTest {

  @Test
  void durationsReadUnitsZeroAndIso() {
    assertThat(Values.duration("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Values.duration("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(Values.duration(" 2m ")).isEqualTo(Duration.ofMinutes(2));
    assertThat(Values.duration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Values.duration("0")).isZero();
    assertThat(Values.duration("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void durationsWithoutUnitOrNegativeAreRejected() {
    assertThatThrownBy(() -> Values.duration("10")).hasMessageContaining("with a unit");
    assertThatThrownBy(() -> Values.duration("-1s")).hasMessageContaining("not a duration");
    assertThatThrownBy(() -> Values.duration("PT-1S")).hasMessageContaining("not negative");
    assertThatThrownBy(() -> Values.duration("fast")).hasMessageContaining("not a duration");
  }

  @Test
  void sizesReadBinaryAndDecimalUnits() {
    assertThat(Values.bytes("1048576")).isEqualTo(1 << 20);
    assertThat(Values.bytes("512KiB")).isEqualTo(512 * 1024);
    assertThat(Values.bytes("64MiB")).isEqualTo(64L << 20);
    assertThat(Values.bytes("2GB")).isEqualTo(2_000_000_000L);
    assertThatThrownBy(() -> Values.bytes("lots")).hasMessageContaining("not a size");
    assertThatThrownBy(() -> Values.bytes("99999999999GiB")).hasMessageContaining("63 bits");
  }

  @Test
  void formatRoundTripsWholeUnits() {
    for (String s : new String[] {"0", "250ms", "10s", "2m", "1h"}) {
      assertThat(Values.format(Values.duration(s))).isEqualTo(s);
    }
    assertThat(Values.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
  }
}
