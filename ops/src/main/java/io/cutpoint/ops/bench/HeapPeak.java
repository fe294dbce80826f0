package io.cutpoint.ops.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * Peak heap of this JVM (workers and coordinator share it): the sum of every heap pool's peak usage
 * since the last {@link #reset()}. Pools peak at different moments, so the sum is an upper bound of
 * the true simultaneous peak.
 */
final class HeapPeak {

  private HeapPeak() {}

  static void reset() {
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  static long peakBytes() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  static long maxHeapBytes() {
    return Runtime.getRuntime().maxMemory();
  }
}
