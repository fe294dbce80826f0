package io.cutpoint.ops.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time of this whole process (every thread: workers, coordinator, gRPC, GC, JIT, RocksDB's
 * own), from {@code com.sun.management.OperatingSystemMXBean#getProcessCpuTime}; and, on Linux, the
 * part of it the JIT's compiler threads used, from {@code /proc/self/task/<tid>/stat}. Both advance
 * in clock ticks (10 ms), so they are read over intervals of many snapshots or messages.
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

  /** HotSpot's compiler threads, as Linux names them (15 characters at most). */
  private static final java.util.Set<String> COMPILERS =
      java.util.Set.of("C1 CompilerThre", "C2 CompilerThre");

  /** Linux's clock tick for the times in {@code /proc} ({@code USER_HZ}, 100 on every platform). */
  private static final long NANOS_PER_TICK = 10_000_000L;

  private static final Path TASKS = Path.of("/proc/self/task");

  /** Nanoseconds of CPU used so far, or -1 where the JVM cannot tell. */
  static long nanos() {
    return OS == null ? -1 : OS.getProcessCpuTime();
  }

  /**
   * Nanoseconds of CPU the JIT's compiler threads now running used so far, or -1 where {@code
   * /proc} cannot tell (not Linux). A compiler thread that ends takes its time with it, so over an
   * interval this may tell less than the JIT used, never more.
   */
  static long jitNanos() {
    if (!Files.isDirectory(TASKS)) {
      return -1;
    }
    long ticks = 0;
    try (Stream<Path> tasks = Files.list(TASKS)) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        ticks += compilerTicks(task.resolve("stat"));
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return ticks * NANOS_PER_TICK;
  }

  /** The user and system ticks of a compiler thread's {@code stat}; 0 for any other thread. */
  private static long compilerTicks(Path stat) {
    String line;
    try {
      line = Files.readString(stat);
    } catch (IOException e) {
      return 0; // the thread ended meanwhile
    }
    return ticksIfCompiler(line);
  }

  /**
   * From one {@code /proc/<pid>/task/<tid>/stat} line: utime + stime if the thread's name is a
   * compiler thread's, else 0. The name (field 2) is in parentheses and may hold spaces; the fields
   * after it start with the state (field 3), so utime and stime (14 and 15) are the 12th and 13th.
   */
  static long ticksIfCompiler(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open || !COMPILERS.contains(stat.substring(open + 1, close))) {
      return 0;
    }
    String[] f = stat.substring(close + 2).trim().split(" ");
    return f.length < 13 ? 0 : Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
