package io.cutpoint.ops.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Samples (latencies in milliseconds, or ratios), summarised as min, p50, p99 and max (nearest-rank
 * percentiles).
 */
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

  /** Every sample, in the order added. */
  synchronized List<Double> values() {
    List<Double> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      out.add(values[i]);
    }
    return out;
  }

  /** The smallest sample; NaN without samples. */
  synchronized double min() {
    if (size == 0) {
      return Double.NaN;
    }
    double min = values[0];
    for (int i = 1; i < size; i++) {
      min = Math.min(min, values[i]);
    }
    return min;
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
