package io.cutpoint.ops.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Pacing of the benchmark's own loops (not a test wait: the benchmark measures time). */
final class Pause {

  private Pause() {}

  static void millis(long ms) {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  static void untilNanos(long deadline) {
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      LockSupport.parkNanos(left);
    }
  }
}
