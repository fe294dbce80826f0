package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void delaysDoubleUpToTheCapWithoutJitterAtTheMidpoint() {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofMillis(1000), () -> 0.5);
    assertThat(b.next()).isEqualTo(Duration.ofMillis(100));
    assertThat(b.next()).isEqualTo(Duration.ofMillis(200));
    assertThat(b.next()).isEqualTo(Duration.ofMillis(400));
    assertThat(b.next()).isEqualTo(Duration.ofMillis(800));
    assertThat(b.next()).isEqualTo(Duration.ofMillis(1000));
    assertThat(b.next()).isEqualTo(Duration.ofMillis(1000));
    assertThat(b.attempts()).isEqualTo(6);
  }

  @Test
  void jitterStaysWithinTwentyPercentAndNeverExceedsTheCap() {
    Backoff low = new Backoff(Duration.ofMillis(100), Duration.ofMillis(1000), () -> 0.0);
    Backoff high = new Backoff(Duration.ofMillis(100), Duration.ofMillis(1000), () -> 0.999999);
    assertThat(low.next()).isEqualTo(Duration.ofMillis(80));
    assertThat(high.next().toMillis()).isBetween(119L, 120L);
    for (int i = 0; i < 10; i++) {
      high.next();
    }
    assertThat(high.next()).isEqualTo(Duration.ofMillis(1000));
    for (int i = 0; i < 10; i++) {
      low.next();
    }
    assertThat(low.next()).isEqualTo(Duration.ofMillis(800));
  }

  @Test
  void resetStartsOverFromTheInitialDelay() {
    Backoff b = new Backoff(Duration.ofMillis(10), Duration.ofSeconds(10), () -> 0.5);
    b.next();
    b.next();
    b.next();
    b.reset();
    assertThat(b.attempts()).isZero();
    assertThat(b.next()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void hugeCapsDoNotOverflow() {
    Backoff b = new Backoff(Duration.ofMillis(1), Duration.ofDays(365 * 100), () -> 0.5);
    Duration last = Duration.ZERO;
    for (int i = 0; i < 200; i++) {
      Duration d = b.next();
      assertThat(d).isPositive().isGreaterThanOrEqualTo(last);
      last = d;
    }
    assertThat(last).isEqualTo(Duration.ofDays(365 * 100));
  }

  @Test
  void rejectsABadRange() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), () -> 0.5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), () -> 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("below initial");
  }
}
