package io.cutpoint.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * An array is handed out again only once given back, only if large enough, and no more than kept.
 */
class ArrayPoolTest {

  @Test
  void anArrayIsReusedOnlyOnceGivenBack() {
    ArrayPool pool = new ArrayPool(2);
    byte[] a = pool.take(100);
    assertThat(a).hasSizeGreaterThanOrEqualTo(ArrayPool.SMALLEST);
    assertThat(pool.take(100)).as("a is still taken").isNotSameAs(a);
    pool.give(a);
    assertThat(pool.take(100)).isSameAs(a);
    assertThat(pool.reused()).isOne();
  }

  @Test
  void anArrayTooSmallForTheSizeAskedIsNotHandedOut() {
    ArrayPool pool = new ArrayPool(2);
    byte[] a = pool.take(10);
    pool.give(a);
    byte[] large = pool.take(ArrayPool.SMALLEST + 1);
    assertThat(large).isNotSameAs(a).hasSize(ArrayPool.SMALLEST + 1);
    assertThat(pool.reused()).isZero();
  }

  @Test
  void itKeepsNoMoreThanItsLimit() {
    ArrayPool pool = new ArrayPool(1);
    byte[] a = pool.take(10);
    byte[] b = pool.take(10);
    pool.give(a);
    pool.give(b);
    assertThat(pool.take(10)).isSameAs(a);
    assertThat(pool.take(10)).isNotSameAs(b);
    assertThatThrownBy(() -> new ArrayPool(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
