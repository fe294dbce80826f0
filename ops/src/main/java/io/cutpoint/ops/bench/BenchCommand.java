package io.cutpoint.ops.bench;

import ch.qos.logback.classic.Level;
import io.cutpoint.ops.CutpointCommand;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Measure Cutpoint on this machine with in-JVM workers over loopback gRPC and an "
          + "embedded coordinator: the raw limits of this machine (marker hop, unary call, synced RocksDB "
          + "commit, stream and ingest rates), snapshot latency (2..32 workers, ring and full mesh, 1 KiB and "
          + "16 MiB states, idle and under traffic; a 128-worker ring idle) against the critical-path limit, "
          + "CPU per snapshot, throughput overhead of snapshots every 100 ms, the data "
          + "plane against a raw batched gRPC stream, recovery time against reading and shipping the "
          + "same bytes, peak heap, a P x P dataflow workload, and incremental snapshots "
          + "(content-defined chunks: the bytes uploaded and the latency when 0.1%%, 1%% or 10%% "
          + "of each state changed between snapshots, against full uploads).",
      "Prints tables (progress on stderr); with --json also one JSON object as the last line. "
          + "The default run takes under 12 minutes, --quick about 2 minutes on a quiet machine "
          + "(up to 45 s of it the warm-up, until the JIT has settled, and 30 to 60 s the "
          + "incremental snapshots); the tables end with the total wall time, each phase's, and "
          + "what the warm-up took.",
      "It measures in a child JVM started with -XX:+UseTransparentHugePages when the kernel gives "
          + "huge pages on request and this JVM did not ask for them (what worker-sdk.md advises "
          + "for large states); --no-fork measures in this JVM."
    })
public final class BenchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--quick", description = "Fewer sizes and samples, shorter windows.")
  boolean quick;

  @Option(names = "--json", description = "End with one JSON object holding every number.")
  boolean json;

  @Option(
      names = "--workers",
      paramLabel = "N,N",
      split = ",",
      description = "Cluster sizes of the latency sweep (default 2,4,8,16,32; quick 2,8,32).")
  List<Integer> workers;

  @Option(
      names = "--idle-rings",
      paramLabel = "N,N",
      split = ",",
      description =
          "Ring sizes measured idle with 1 KiB states after the sweep (default 128; none when "
              + "--workers is given).")
  List<Integer> idleRings;

  @Option(
      names = "--samples",
      paramLabel = "N",
      description =
          "Snapshots measured per 1 KiB configuration (default 100; quick 20, and 100 up to 8"
              + " workers, where a p99 is a target).")
  Integer samples;

  @Option(
      names = "--window-ms",
      paramLabel = "MS",
      description = "Length of each throughput window (default 1000; quick 400).")
  Long windowMs;

  @Option(
      names = "--recovery-mib",
      paramLabel = "MIB,MIB",
      split = ",",
      description = "Total state sizes of the recovery runs (default 8,128,1024; quick 8,128).")
  List<Integer> recoveryMib;

  @Option(
      names = "--dataflow",
      paramLabel = "P,P",
      split = ",",
      description = "P values of the dataflow workload (default 2,4,8; quick 2,4).")
  List<Integer> dataflow;

  @Option(
      names = "--large-state-kib",
      paramLabel = "KIB",
      description = "The large per-worker state of the latency sweep (default 16384).")
  Integer largeStateKib;

  @Option(
      names = "--incremental",
      negatable = true,
      description =
          "Measure incremental snapshots (on by default, --quick too; --no-incremental skips them).")
  Boolean incremental;

  @Option(
      names = "--incremental-kib",
      paramLabel = "KIB,KIB",
      split = ",",
      description =
          "Per-worker states of the incremental snapshots: on the 8-worker mesh, then on the "
              + "2-worker ring; one value sets the mesh's only (default 16384,262144).")
  List<Integer> incrementalKib;

  @Option(
      names = "--incremental-samples",
      paramLabel = "N",
      description =
          "Snapshots measured per incremental row and of each full upload (default 10 on the "
              + "mesh, 4 on the ring; quick 3 and 2).")
  Integer incrementalSamples;

  @Option(
      names = "--warm-up-s",
      paramLabel = "S",
      description =
          "Longest warm-up before the first measurement: unmeasured snapshots until the JIT has "
              + "settled, at least 3 s (default 45; 0: none, the first rows then measure the JIT "
              + "too).")
  int warmUpSeconds = 45;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description = "Where the coordinators' temporary stores go (default: the system temp dir).")
  Path dataDir;

  @Option(
      names = "--no-sync",
      description =
          "Diagnosis only: the coordinators' stores do not fsync "
              + "commits (shows what the fsync costs; not a production setting).")
  boolean noSync;

  @Option(
      names = "--markers-in-order",
      description =
          "Workers take each marker in its turn behind the data sent before it, instead of as "
              + "soon as they read it (the default; see protocol.md, \"Early markers\").")
  boolean markersInOrder;

  @Option(
      names = ChildJvm.NO_FORK,
      description =
          "Measure in this JVM, as it was started, even where a child JVM with huge pages would "
              + "be started (for profilers attached to this process).")
  boolean noFork;

  @Option(
      names = "--verbose",
      description = "Show the coordinator's and workers' logs (default: errors only).")
  boolean verbose;

  @Override
  public Integer call() {
    BenchPlan base =
        (quick ? BenchPlan.quick() : BenchPlan.standard())
            .with(
                workers,
                idleRings,
                samples,
                windowMs,
                recoveryMib,
                dataflow,
                largeStateKib,
                dataDir)
            .withSyncStore(!noSync)
            .withMarkersAhead(!markersInOrder);
    BenchPlan plan =
        base.withIncremental(
            Boolean.FALSE.equals(incremental)
                ? null
                : base.incremental().with(incrementalKib, incrementalSamples));
    check(plan);
    if (!noFork) {
      Integer forked = inChildJvm();
      if (forked != null) {
        return forked;
      }
    }
    ChildJvm.endWithLauncher();
    if (!verbose) {
      // gRPC's and Netty's loggers have levels of their own (logback.xml): set them too
      for (String name : List.of(Logger.ROOT_LOGGER_NAME, "io.grpc", "io.netty")) {
        if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger logback) {
          logback.setLevel(Level.ERROR);
        }
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    long start = System.nanoTime();
    Consumer<String> progress =
        line -> {
          err.printf("[%5.1f s] %s%n", (System.nanoTime() - start) / 1e9, line);
          err.flush();
        };
    Map<String, Double> phases = new LinkedHashMap<>();
    WarmUpPhase.Result warmUp =
        timed(phases, "warm-up", () -> WarmUpPhase.run(plan, progress, warmUpSeconds * 1000L));
    List<LatencyPhase.Row> latency =
        timed(phases, "latency", () -> LatencyPhase.run(plan, progress));
    // after the sweep: the raw paths are then as warm as the snapshots' were
    LimitsPhase.Result limits = timed(phases, "limits", () -> LimitsPhase.run(plan, progress));
    OverheadPhase.Result overhead =
        timed(phases, "overhead", () -> OverheadPhase.run(plan, progress));
    List<DataPlanePhase.Row> dataplane =
        timed(phases, "dataplane", () -> DataPlanePhase.run(plan, progress));
    RecoveryPhase.Result recovery =
        timed(phases, "recovery", () -> RecoveryPhase.run(plan, progress));
    List<DataflowPhase.Row> flows =
        timed(phases, "dataflow", () -> DataflowPhase.run(plan, progress));
    IncrementalPhase.Result incremental =
        plan.incremental() == null
            ? null
            : timed(phases, "incremental", () -> IncrementalPhase.run(plan, progress));
    double elapsed = (System.nanoTime() - start) / 1e9;
    progress.accept("done");
    BenchResults results =
        new BenchResults(
            (quick ? "quick" : "standard")
                + (noSync ? ", store not synced" : "")
                + (markersInOrder ? ", markers in order" : ""),
            warmUp,
            limits,
            latency,
            overhead,
            dataplane,
            recovery,
            flows,
            incremental,
            elapsed,
            phases);
    BenchReport report = new BenchReport(results, plan.smallStateBytes());
    out.print(report.tables());
    if (json) {
      out.println(report.json());
    }
    out.flush();
    return 0;
  }

  /**
   * Runs this command in a child JVM and returns its exit code, when the child would get flags this
   * JVM lacks ({@link ChildJvm}); null to measure here.
   */
  private Integer inChildJvm() {
    List<String> jvmArguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
    List<String> flags = ChildJvm.missingFlags(HugePages.ofThisJvm(), jvmArguments);
    var java = ProcessHandle.current().info().command();
    String classPath = System.getProperty("java.class.path", "");
    if (flags.isEmpty()
        || java.isEmpty()
        || !ChildJvm.onClassPath(CutpointCommand.class, classPath)) {
      return null;
    }
    PrintWriter err = spec.commandLine().getErr();
    err.println(
        "measuring in a child JVM with "
            + String.join(" ", flags)
            + " (the kernel gives huge pages on request); "
            + ChildJvm.NO_FORK
            + " measures in this one");
    err.flush();
    return ChildJvm.run(
        ChildJvm.command(
            java.get(),
            jvmArguments,
            flags,
            classPath,
            CutpointCommand.class.getName(),
            spec.commandLine().getParseResult().originalArgs(),
            ProcessHandle.current().pid()),
        spec.commandLine().getOut(),
        err);
  }

  /** Runs one phase and notes its wall time in seconds under {@code name}. */
  private static <T> T timed(Map<String, Double> phases, String name, Supplier<T> phase) {
    long t0 = System.nanoTime();
    T result = phase.get();
    phases.put(name, (System.nanoTime() - t0) / 1e9);
    return result;
  }

  private void check(BenchPlan plan) {
    positive("--workers", plan.workers(), 2);
    if (plan.idleRings().stream().anyMatch(v -> v == null || v < 2)) {
      throw new ParameterException(
          spec.commandLine(), "--idle-rings values must be at least 2, got " + plan.idleRings());
    }
    positive("--recovery-mib", plan.recoveryMib(), 1);
    positive("--dataflow", plan.dataflow(), 1);
    if (plan.samples() < 1) {
      throw new ParameterException(spec.commandLine(), "--samples must be at least 1");
    }
    if (plan.windowMillis() < 50) {
      throw new ParameterException(spec.commandLine(), "--window-ms must be at least 50");
    }
    if (plan.largeStateBytes() < 1 || plan.largeStateBytes() > (256 << 20)) {
      throw new ParameterException(spec.commandLine(), "--large-state-kib must be 1..262144");
    }
    if (incrementalKib != null
        && (incrementalKib.isEmpty()
            || incrementalKib.size() > 2
            || incrementalKib.stream().anyMatch(v -> v == null || v < 4 || v > 262_144))) {
      throw new ParameterException(
          spec.commandLine(),
          "--incremental-kib takes one or two values of 4..262144 (a changed record is 4 KiB), got "
              + incrementalKib);
    }
    if (warmUpSeconds < 0 || warmUpSeconds > 600) {
      throw new ParameterException(spec.commandLine(), "--warm-up-s must be 0..600");
    }
    if (incrementalSamples != null && incrementalSamples < 1) {
      throw new ParameterException(spec.commandLine(), "--incremental-samples must be at least 1");
    }
  }

  private void positive(String flag, List<Integer> values, int min) {
    if (values.isEmpty() || values.stream().anyMatch(v -> v == null || v < min)) {
      throw new ParameterException(
          spec.commandLine(), flag + " values must be at least " + min + ", got " + values);
    }
  }
}
