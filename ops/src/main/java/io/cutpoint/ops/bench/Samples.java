package io.cutpoint.ops.bench;

import java.util.Arrays;

/** Latency samples in milliseconds, summarised as p50, p99 and max (nearest-rank percentiles). */
final class Samples {

  private double[] values = new double[16];
  private int size;

  synchronized void add(double millis) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = millis;
  }

  synchronized int count() {
    return size;
  }

  /** The {@code q}-quantile (0 < q <= 1) by nearest rank; NaN without samples. */
  synchronized double quantile(double q) {
    if (size == 0) {
      return Double.NaN;
    }
    double[] sorted = Arrays.copyOf(values, size);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(q * size);
    return sorted[Math.max(0, Math.min(size - 1, rank - 1))];
  }

  double p50() {
    return quantile(0.50);
  }

  double p99() {
    return quantile(0.99);
  }

  double max() {
    return quantile(1.0);
  }
}
