package io.cutpoint.ops.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the Java heap is backed by transparent huge pages: what the kernel offers ({@code
 * /sys/kernel/mm/transparent_hugepage/enabled}) and whether this JVM asks for them ({@code
 * -XX:+UseTransparentHugePages}). A restore allocates each state as one array; on fresh heap memory
 * every 4 KiB page is a fault, and local-copy rollbacks of 1 GiB measured 4 to 8 times faster with
 * 2 MiB pages (benchmarks.md, section 4.22). Reported next to the numbers it changes.
 *
 * @param system the kernel's mode ({@code always}, {@code madvise}, {@code never}), or {@code
 *     unknown} where there is no such file
 * @param jvm whether this JVM uses them for its heap
 */
record HugePages(String system, boolean jvm) {
  private static final Path ENABLED = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
  private static final Pattern CHOSEN = Pattern.compile("\\[(\\w+)\\]");

  static HugePages ofThisJvm() {
    return new HugePages(systemMode(ENABLED), jvmOption());
  }

  /** The bracketed choice of {@code file}, as the kernel writes it; {@code unknown} if none. */
  static String systemMode(Path file) {
    try {
      Matcher m = CHOSEN.matcher(Files.readString(file));
      return m.find() ? m.group(1) : "unknown";
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static boolean jvmOption() {
    try {
      return Boolean.parseBoolean(
          ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
              .getVMOption("UseTransparentHugePages")
              .getValue());
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Whether the heap gets huge pages: the kernel gives them to all, or to those who ask. */
  boolean used() {
    return system.equals("always") || (system.equals("madvise") && jvm);
  }

  /** For the report's last lines. */
  String line() {
    if (used()) {
      return "transparent huge pages: " + system + ", the heap uses them";
    }
    if (system.equals("madvise")) {
      return "transparent huge pages: madvise, not asked for (--no-fork, or this JVM's options"
          + " chose): the restores of large states are faster with"
          + " java -XX:+UseTransparentHugePages -jar ... (benchmarks.md 4.22)";
    }
    return "transparent huge pages: " + system;
  }
}
