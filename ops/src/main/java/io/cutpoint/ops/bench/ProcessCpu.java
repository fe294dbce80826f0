package io.cutpoint.ops.bench;

import java.lang.management.ManagementFactory;

/**
 * CPU time of this whole process (every thread: workers, coordinator, gRPC, GC, JIT, RocksDB's
 * own), from {@code com.sun.management.OperatingSystemMXBean#getProcessCpuTime}. On Linux it
 * advances in clock ticks (10 ms), so it is read over intervals of many snapshots or messages.
 */
final class ProcessCpu {

  private static final com.sun.management.OperatingSystemMXBean OS = bean();

  private ProcessCpu() {}

  private static com.sun.management.OperatingSystemMXBean bean() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os
        : null;
  }

  /** Nanoseconds of CPU used so far, or -1 where the JVM cannot tell. */
  static long nanos() {
    return OS == null ? -1 : OS.getProcessCpuTime();
  }
}
