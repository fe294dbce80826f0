package io.cutpoint.server.sim;

import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.client.sim.Topology;
import java.util.Arrays;

/**
 * The coordinator's CPU time per idle snapshot as the cluster grows, measured on an {@link
 * IdleCluster} (the production cores, no sockets): rings of 10, 100 and 1,000 workers and full
 * meshes of 10, 30 and 100 workers. For each size it takes a few snapshots to warm up, then several
 * measured ones, and prints one line per size: workers, channels, the median CPU time of the
 * coordinator's work per snapshot, and that per worker and per channel. Every snapshot must commit
 * and every committed cut must verify, or it stops.
 *
 * <p>Run with the classpath a build writes (the command is in architecture.md, "Scale"): {@code
 * java -cp server/target/test-classes:server/target/classes:$(cat server/target/classpath.txt)
 * io.cutpoint.server.sim.ScaleCurve [ring:1000 mesh:30 ...]}. It prints the heap a pending snapshot
 * holds after the curve.
 */
public final class ScaleCurve {

  private static final String[] SIZES = {
    "ring:10", "ring:100", "ring:1000", "mesh:10", "mesh:30", "mesh:100"
  };

  /** Snapshots taken on each cluster before the measured ones, and measured ones. */
  static final int WARM_UP = 3;

  static final int MEASURED = 7;

  private ScaleCurve() {}

  /** One size measured: the coordinator's CPU time of each measured snapshot. */
  record Point(String shape, int workers, int channels, long[] nanos, long tasks, long joinNanos) {
    double medianMs() {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return sorted[sorted.length / 2] / 1e6;
    }

    double minMs() {
      return Arrays.stream(nanos).min().orElse(0) / 1e6;
    }

    String line() {
      double ms = medianMs();
      return String.format(
          "| %-10s | %7d | %8d | %15.2f | %6.2f | %9.1f | %10.1f | %5d | %10.1f |",
          shape,
          workers,
          channels,
          ms,
          minMs(),
          ms * 1000 / workers,
          channels == 0 ? 0 : ms * 1000 / channels,
          tasks / nanos.length,
          joinNanos / 1e6);
    }
  }

  static Topology topology(String spec) {
    String[] parts = spec.split(":");
    int n = Integer.parseInt(parts[1]);
    return switch (parts[0]) {
      case "ring" -> Topology.ring(n);
      case "mesh" -> Topology.fullMesh(n);
      default -> throw new IllegalArgumentException("ring:N or mesh:N, not " + spec);
    };
  }

  /** Takes {@code warmUp} then {@code measured} snapshots on {@code spec}'s cluster. */
  static Point measure(String spec, int warmUp, int measured) {
    Topology t = topology(spec);
    IdleCluster cluster = new IdleCluster(t, 42);
    long[] nanos = new long[measured];
    long tasks = 0;
    for (int i = 0; i < warmUp + measured; i++) {
      IdleCluster.Taken taken = cluster.snapshot();
      if (taken.manifest().getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
        throw new IllegalStateException(spec + ": snapshot ended " + taken.manifest());
      }
      if (i >= warmUp) {
        nanos[i - warmUp] = taken.coordinatorNanos();
        tasks += taken.coordinatorTasks();
      }
    }
    int committed = cluster.checkCommitted().size();
    if (!cluster.problems().isEmpty() || committed != warmUp + measured) {
      throw new IllegalStateException(
          spec + ": " + committed + " committed; problems: " + cluster.problems());
    }
    return new Point(
        spec, t.workers().size(), t.channels().size(), nanos, tasks, cluster.joinNanos());
  }

  public static void main(String[] args) {
    String[] sizes = args.length > 0 ? args : SIZES;
    try (QuietLogs quiet = new QuietLogs()) {
      measure("ring:100", 20, 1); // the JIT compiles the coordinator's paths first
    }
    System.out.println(
        "| shape      | workers | channels | CPU ms/snapshot | min ms | µs/worker | µs/channel |"
            + " tasks | joins ms |");
    System.out.println(
        "|------------|--------:|---------:|----------------:|-------:|----------:|-----------:|"
            + "------:|---------:|");
    try (QuietLogs quiet = new QuietLogs()) {
      for (String spec : sizes) {
        System.out.println(measure(spec, WARM_UP, MEASURED).line());
      }
      System.out.println();
      System.out.println(
          "| shape      | heap KiB, pending (all pieces but one in) | heap KiB, committed |"
              + " difference per worker, bytes |");
      System.out.println("|------------|---:|---:|---:|");
      for (String spec : sizes) {
        Topology t = topology(spec);
        IdleCluster cluster = new IdleCluster(t, 42);
        cluster.snapshot(); // warm: the first snapshot reserves a block of ids, and more
        IdleCluster.Held held = cluster.heldBySnapshot();
        System.out.printf(
            "| %-10s | %,d | %,d | %,d |%n",
            spec,
            held.pendingBytes() / 1024,
            held.committedBytes() / 1024,
            (held.pendingBytes() - held.committedBytes()) / t.workers().size());
      }
    }
  }
}
