package io.cutpoint.playground.sim;

/**
 * SplitMix64: a seeded generator with the same sequence on the JVM and in the browser (TeaVM's
 * {@code java.util.Random} need not match the JDK's), so a seed names one run everywhere.
 */
final class Rng {

  private long state;

  Rng(long seed) {
    this.state = seed;
  }

  long nextLong() {
    long z = (state += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Uniform in {@code [0, bound)}, {@code bound > 0}. */
  int nextInt(int bound) {
    return (int) Long.remainderUnsigned(nextLong(), bound);
  }

  /** Uniform in {@code [0, 1)}. */
  double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }
}
