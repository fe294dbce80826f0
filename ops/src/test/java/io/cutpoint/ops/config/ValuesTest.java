package io.cutpoint.ops.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ValuesTest {

  @Test
  void sizesReadBinaryAndDecimalUnits() {
    assertThat(Values.bytes("1048576")).isEqualTo(1 << 20);
    assertThat(Values.bytes("512KiB")).isEqualTo(512 * 1024);
    assertThat(Values.bytes("64MiB")).isEqualTo(64L << 20);
    assertThat(Values.bytes("2GB")).isEqualTo(2_000_000_000L);
    assertThatThrownBy(() -> Values.bytes("lots")).hasMessageContaining("not a size");
    assertThatThrownBy(() -> Values.bytes("99999999999GiB")).hasMessageContaining("63 bits");
  }
}
