package io.cutpoint.ops.bench;

import io.cutpoint.ops.format.Json;
import io.cutpoint.ops.format.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Renders {@link BenchResults} as tables and as one JSON object, with the targets checked. */
final class BenchReport {

  /**
   * A target and what was measured against it; {@code noise}: the measurement is a ratio whose
   * median came out above 1.0, which is noise ({@link #NO_COST}) and meets nothing.
   */
  record Target(
      String name,
      String limit,
      double measured,
      boolean lowerIsBetter,
      double bound,
      boolean noise) {
    Target(String name, String limit, double measured, boolean lowerIsBetter, double bound) {
      this(name, limit, measured, lowerIsBetter, bound, false);
    }

    Boolean met() {
      if (Double.isNaN(measured) || noise) {
        return null;
      }
      return lowerIsBetter ? measured <= bound : measured >= bound;
    }
  }

  /** The large state whose latency has a target (another {@code --large-state-kib} has none). */
  private static final int LARGE_TARGET_BYTES = 16 << 20;

  private final BenchResults r;
  private final int smallState;

  BenchReport(BenchResults results, int smallStateBytes) {
    this.r = results;
    this.smallState = smallStateBytes;
  }

  private double latency(int n, boolean traffic, ToDoubleFunction<Samples> f) {
    return latency(n, "mesh", traffic, f);
  }

  private double latency(int n, String layout, boolean traffic, ToDoubleFunction<Samples> f) {
    return r.latency(n, layout, traffic, smallState)
        .map(row -> f.applyAsDouble(row.total()))
        .orElse(Double.NaN);
  }

  /** The idle small-state mesh of {@code n} workers with the coordinator's store on S3. */
  private double latencyOnS3(int n, ToDoubleFunction<Samples> f) {
    return r.latency(n, "mesh", false, smallState, BenchCoordinator.S3)
        .map(row -> f.applyAsDouble(row.total()))
        .orElse(Double.NaN);
  }

  private double cpuPerSnapshot(int n, String layout) {
    return r.latency(n, layout, false, smallState)
        .map(LatencyPhase.Row::cpuMillisPerSnapshot)
        .orElse(Double.NaN);
  }

  private double jitPerSnapshot(int n, String layout) {
    return r.latency(n, layout, false, smallState)
        .map(LatencyPhase.Row::jitMillisPerSnapshot)
        .orElse(Double.NaN);
  }

  /** Every target: the run's, then the incremental section's if it ran. */
  List<Target> targets() {
    List<Target> all = new ArrayList<>(runTargets());
    if (r.incremental() != null) {
      new IncrementalReport(r.incremental()).checks().forEach(c -> all.add(c.target()));
    }
    return all;
  }

  /**
   * The snapshot fast path's targets (2 ms for a 2-worker ring up to 50 ms for a 128-worker ring,
   * CPU, the dataflow at every P, the large state, the data plane at every payload), then
   * throughput and recovery.
   */
  private List<Target> runTargets() {
    List<Target> t = new ArrayList<>();
    t.add(
        new Target(
            "snapshot p50, 2 workers ring, 1 KiB, idle",
            "<= 2 ms",
            latency(2, "ring", false, Samples::p50),
            true,
            2));
    t.add(
        new Target(
            "snapshot p50, 8 workers mesh, 1 KiB, idle",
            "<= 3 ms",
            latency(8, false, Samples::p50),
            true,
            3));
    t.add(
        new Target(
            "snapshot p99, 8 workers mesh, 1 KiB, idle",
            "<= 10 ms",
            latency(8, false, Samples::p99),
            true,
            10));
    t.add(
        new Target(
            "snapshot p99, 8 workers mesh, 1 KiB, traffic",
            "<= 20 ms",
            latency(8, true, Samples::p99),
            true,
            20));
    t.add(
        new Target(
            "snapshot p50, 32 workers mesh, 1 KiB, idle",
            "<= 25 ms",
            latency(32, false, Samples::p50),
            true,
            25));
    t.add(
        new Target(
            "snapshot p50, 128 workers ring, 1 KiB, idle",
            "<= 50 ms",
            latency(128, "ring", false, Samples::p50),
            true,
            50));
    t.add(
        new Target(
            "CPU per snapshot, 8 workers mesh, idle",
            "<= 2 ms",
            cpuPerSnapshot(8, "mesh"),
            true,
            2));
    t.add(
        new Target(
            "snapshot p50, 2 workers ring, 16 MiB, idle",
            "<= 100 ms",
            r.latency(2, "ring", false, LARGE_TARGET_BYTES)
                .map(row -> row.total().p50())
                .orElse(Double.NaN),
            true,
            100));
    for (DataflowPhase.Row f : r.dataflow()) {
      Alternating.Result a = f.run();
      t.add(
          new Target(
              "dataflow P = " + f.p() + ", snapshot p50", "<= 10 ms", a.latency().p50(), true, 10));
      t.add(
          new Target(
              "dataflow P = " + f.p() + ", snapshot p99", "<= 40 ms", a.latency().p99(), true, 40));
      t.add(
          new Target(
              "dataflow P = " + f.p() + ", throughput with snapshots / without",
              ">= 0.95",
              a.ratio(),
              false,
              0.95,
              a.noise()));
    }
    t.add(
        new Target(
            "throughput with snapshots / without (4 workers mesh)",
            ">= 0.97",
            r.overhead().run().ratio(),
            false,
            0.97,
            r.overhead().run().noise()));
    for (DataPlanePhase.Row d : r.dataplane()) {
      t.add(
          new Target(
              "data plane / raw batched gRPC, " + d.payloadBytes() + " B",
              ">= 0.80",
              d.ratio(),
              false,
              0.8,
              d.noise()));
    }
    t.add(new Target("recovery / read-and-ship", "<= 1.5", r.recoveryRatio(), true, 1.5));
    t.add(
        new Target(
            "recovery from local copies / recovery by download (largest state)",
            "<= 0.5",
            r.localRecoveryRatio(),
            true,
            0.5));
    return t;
  }

  String tables() {
    StringBuilder b = new StringBuilder();
    LimitsPhase.Result l = r.limits();
    b.append("Limits of this machine, raw (no Cutpoint logic), measured in this run\n");
    Table lt = new Table("what", ">p50", ">p99", ">n");
    lt.row(
        "marker hop on an open stream (ms)",
        ms(l.markerHop().p50()),
        ms(l.markerHop().p99()),
        l.markerHop().count());
    lt.row(
        "unary gRPC round trip (ms)", ms(l.unary().p50()), ms(l.unary().p99()), l.unary().count());
    lt.row(
        "the same after " + LimitsPhase.IDLE_MILLIS + " ms idle (ms)",
        ms(l.unaryAfterIdle().p50()),
        ms(l.unaryAfterIdle().p99()),
        l.unaryAfterIdle().count());
    lt.row(
        "synced RocksDB batch commit (ms)",
        ms(l.syncedCommit().p50()),
        ms(l.syncedCommit().p99()),
        l.syncedCommit().count());
    lt.row(
        "the same after " + LimitsPhase.IDLE_MILLIS + " ms idle (ms)",
        ms(l.syncedCommitAfterIdle().p50()),
        ms(l.syncedCommitAfterIdle().p99()),
        l.syncedCommitAfterIdle().count());
    lt.row("loopback stream (MB/s)", mb(l.streamBytesPerSecond()), "", "");
    lt.row("RocksDB ingest (MB/s)", mb(l.ingestBytesPerSecond()), "", "");
    b.append(lt.render()).append('\n');

    b.append(
        "Snapshot latency, trigger to committed (ms; phases are p50; limit: the critical path at this "
            + "machine's limits; cpu: process CPU per snapshot minus idle, idle rows only, and the "
            + "part of it the JIT's compiler threads used; store: "
            + "the coordinator's, s3 = S3Proxy and ZooKeeper in this JVM, no limit)\n");
    Table t =
        new Table(
            ">workers",
            "layout",
            "store",
            ">channels",
            ">state",
            "load",
            ">n",
            ">p50",
            ">p99",
            ">max",
            ">markers",
            ">upload",
            ">commit",
            ">failed",
            ">limit",
            ">p50/limit",
            ">cpu/snap",
            ">of it jit");
    for (LatencyPhase.Row row : r.latency()) {
      double limit = r.limitMillis(row);
      t.row(
          row.workers(),
          row.layout(),
          row.store(),
          row.channels(),
          bytes(row.stateBytes()),
          row.traffic() ? "traffic" : "idle",
          row.total().count(),
          ms(row.total().p50()),
          ms(row.total().p99()),
          ms(row.total().max()),
          ms(row.markers().p50()),
          ms(row.upload().p50()),
          ms(row.commit().p50()),
          row.failed(),
          ms(limit),
          times(row.total().p50() / limit),
          ms(row.cpuMillisPerSnapshot()),
          ms(row.jitMillisPerSnapshot()));
    }
    b.append(t.render()).append('\n');
    b.append(criticalPaths(r));

    OverheadPhase.Result o = r.overhead();
    b.append("Overhead: ").append(o.workers()).append(" workers, full mesh, saturating traffic\n");
    Table ot =
        new Table(
            "snapshots",
            ">msgs/s",
            ">cpu ns/msg",
            ">snapshots",
            ">p50 ms",
            ">p99 ms",
            ">max ms",
            ">in flight/snapshot");
    ot.row("off", rate(o.run().offRate()), ns(o.run().offCpuNanosPerMessage()), "", "", "", "", "");
    ot.row(
        "every 100 ms",
        rate(o.run().onRate()),
        ns(o.run().onCpuNanosPerMessage()),
        o.run().completed(),
        ms(o.run().latency().p50()),
        ms(o.run().latency().p99()),
        ms(o.run().latency().max()),
        mib(o.run().inFlightBytesPerSnapshot()));
    b.append(ot.render())
        .append("ratio (median of ")
        .append(o.run().ratios().count())
        .append(" pairs [min-max]) ")
        .append(ratio(o.run().ratios()))
        .append(", peak heap ")
        .append(o.peakHeapBytes() >> 20)
        .append(" MiB\n\n");

    b.append("Data plane: one channel vs raw gRPC stream (")
        .append(DataPlanePhase.RAW_ITEMS_PER_FRAME)
        .append(" items per frame)\n");
    Table dt =
        new Table(
            ">payload",
            ">cutpoint msgs/s",
            ">raw msgs/s",
            "ratio (median [min-max])",
            ">cpu ns/msg cutpoint",
            ">raw");
    for (DataPlanePhase.Row row : r.dataplane()) {
      dt.row(
          row.payloadBytes() + " B",
          rate(row.cutpointRate()),
          rate(row.rawRate()),
          ratio(row.ratios()),
          ns(row.cutpointCpuNanosPerMessage()),
          ns(row.rawCpuNanosPerMessage()));
    }
    b.append(dt.render()).append('\n');

    b.append(
        "Recovery: rollback request to every worker resumed vs read-and-ship of the same bytes;"
            + " local: the same with local recovery (each worker restores from its own copy)\n");
    Table rt =
        new Table(
            ">state",
            ">workers",
            ">rollback ms",
            ">server ms",
            ">read+ship ms",
            ">ratio",
            ">cpu ms rollback",
            ">read+ship",
            ">cpu ratio",
            ">local ms",
            ">local/rollback",
            "note");
    for (RecoveryPhase.Row row : r.recovery().rows()) {
      rt.row(
          bytes(row.totalBytes()),
          row.workers(),
          ms(row.rollbackMillis()),
          ms(row.serverMillis()),
          ms(row.baselineMillis()),
          row.skipped() == null ? num(row.ratio()) : "",
          row.rollbackCpuMillis() == 0 ? "-" : ms(row.rollbackCpuMillis()),
          row.baselineCpuMillis() == 0 ? "-" : ms(row.baselineCpuMillis()),
          row.skipped() == null ? num(row.cpuRatio()) : "",
          row.localMillis() == 0 ? "-" : ms(row.localMillis()),
          row.localMillis() == 0 ? "-" : num(row.localRatio()),
          row.skipped() == null ? "" : row.skipped());
    }
    b.append(rt.render())
        .append("peak heap ")
        .append(r.recovery().peakHeapBytes() >> 20)
        .append(" MiB (rollbacks by download); with local copies, measured apart after them: ")
        .append(r.recovery().localPeakHeapBytes() >> 20)
        .append(" MiB\n\n");

    b.append("Dataflow: P sources -> P keyed running sums, snapshots every 100 ms vs off\n");
    Table ft =
        new Table(
            ">P",
            ">channels",
            ">off msgs/s",
            ">on msgs/s",
            "ratio (median [min-max])",
            ">cpu ns/msg off",
            ">on",
            ">snapshots",
            ">failed",
            ">p50 ms",
            ">p99 ms",
            ">max ms",
            ">in flight/snapshot");
    for (DataflowPhase.Row row : r.dataflow()) {
      Alternating.Result a = row.run();
      ft.row(
          row.p(),
          row.p() * row.p(),
          rate(a.offRate()),
          rate(a.onRate()),
          ratio(a.ratios()),
          ns(a.offCpuNanosPerMessage()),
          ns(a.onCpuNanosPerMessage()),
          a.completed(),
          a.failed(),
          ms(a.latency().p50()),
          ms(a.latency().p99()),
          ms(a.latency().max()),
          mib(a.inFlightBytesPerSnapshot()));
    }
    b.append(ft.render()).append('\n');
    b.append(dataflowPaths(r));

    if (r.incremental() != null) {
      b.append(new IncrementalReport(r.incremental()).tables());
    }

    b.append("Targets\n");
    Table tt = new Table("what", "target", ">measured", "met");
    for (Target target : targets()) {
      Boolean met = target.met();
      tt.row(
          target.name(),
          target.limit(),
          num(target.measured()),
          target.noise() ? NO_COST : met == null ? "n/a" : met ? "yes" : "NO");
    }
    b.append(tt.render());
    b.append(
        String.format(
            Locale.ROOT,
            "%nmode %s, %d cores, max heap %d MiB, Java %s%ntotal wall time %.0f s (",
            r.mode(),
            Runtime.getRuntime().availableProcessors(),
            HeapPeak.maxHeapBytes() >> 20,
            System.getProperty("java.version"),
            r.elapsedSeconds()));
    List<String> phases = new ArrayList<>();
    r.phaseSeconds()
        .forEach((name, s) -> phases.add(String.format(Locale.ROOT, "%s %.0f s", name, s)));
    b.append(String.join(", ", phases)).append(")\n");
    b.append(warmUpLine(r.warmUp()));
    b.append(HugePages.ofThisJvm().line()).append('\n');
    return b.toString();
  }

  /** What the warm-up before the first measurement took, and whether the JIT had settled. */
  static String warmUpLine(WarmUpPhase.Result w) {
    if (w.snapshots() == 0) {
      return "warm-up: none (--warm-up-s 0): the first rows measured the JIT's compiling too\n";
    }
    String jit =
        w.jitSeconds() < 0
            ? "this JVM does not report compilation time: a fixed warm-up"
            : String.format(
                Locale.ROOT,
                w.settled()
                    ? "the JIT compiled for %.1f s of it and then settled"
                    : "the JIT compiled for %.1f s of it and had not settled: the first rows were"
                        + " measured while it still compiled",
                w.jitSeconds());
    return String.format(
        Locale.ROOT,
        "warm-up: %.0f s of %,d unmeasured snapshots (%d workers, full mesh; idle, under traffic,"
            + " large state); %s%n",
        w.seconds(),
        w.snapshots(),
        WarmUpPhase.WORKERS,
        jit);
  }

  private static Json.Obj hugePages(HugePages h) {
    return Json.object().put("system", h.system()).put("jvm", h.jvm()).put("used", h.used());
  }

  String json() {
    Json.Obj o =
        Json.object()
            .put("mode", r.mode())
            .put("cores", Runtime.getRuntime().availableProcessors())
            .put("max_heap_mib", HeapPeak.maxHeapBytes() >> 20)
            .put("java", System.getProperty("java.version"))
            .put("transparent_huge_pages", hugePages(HugePages.ofThisJvm()))
            .put(
                "warm_up",
                Json.object()
                    .put("s", r.warmUp().seconds())
                    .put("jit_s", r.warmUp().jitSeconds())
                    .put("snapshots", r.warmUp().snapshots())
                    .put("settled", r.warmUp().settled()))
            .put("snapshot_p50_ms_8_mesh", latency(8, false, Samples::p50))
            .put("snapshot_p99_ms_8_mesh", latency(8, false, Samples::p99))
            .put("snapshot_p99_ms_8_mesh_traffic", latency(8, true, Samples::p99))
            .put("snapshot_p50_ms_32_mesh", latency(32, false, Samples::p50))
            .put("overhead_ratio", r.overhead().run().ratio())
            .put("dataplane_ratio", r.dataplaneRatio())
            .put("recovery_ratio", r.recoveryRatio())
            .put("local_recovery_ratio", r.localRecoveryRatio())
            .put("peak_heap_mib_overhead", r.overhead().peakHeapBytes() >> 20)
            .put("peak_heap_mib_recovery", r.recovery().peakHeapBytes() >> 20)
            .put("peak_heap_mib_local_recovery", r.recovery().localPeakHeapBytes() >> 20)
            .put("cpu_ms_per_snapshot_8_mesh", cpuPerSnapshot(8, "mesh"))
            .put("jit_cpu_ms_per_snapshot_8_mesh", jitPerSnapshot(8, "mesh"))
            .put("snapshot_p50_ms_2_ring", latency(2, "ring", false, Samples::p50))
            .put("snapshot_p50_ms_128_ring", latency(128, "ring", false, Samples::p50))
            .put("overhead_ratio_min", r.overhead().run().ratios().min())
            .put("overhead_ratio_max", r.overhead().run().ratios().max())
            .put("overhead_ratio_noise", r.overhead().run().noise())
            .put("snapshot_p50_ms_8_mesh_s3", latencyOnS3(8, Samples::p50))
            .put("snapshot_p99_ms_8_mesh_s3", latencyOnS3(8, Samples::p99));
    for (LatencyPhase.Row row : r.latency()) {
      if (!row.traffic()
          && row.stateBytes() == smallState
          && row.store().equals(BenchCoordinator.ROCKSDB)) {
        o.put(cpuKey(row.workers(), row.layout()), row.cpuMillisPerSnapshot());
      }
    }
    LimitsPhase.Result l = r.limits();
    o.put(
        "limits",
        Json.object()
            .put("marker_hop_ms_p50", l.markerHop().p50())
            .put("marker_hop_ms_p99", l.markerHop().p99())
            .put("unary_rtt_ms_p50", l.unary().p50())
            .put("unary_rtt_ms_p99", l.unary().p99())
            .put("unary_rtt_after_idle_ms_p50", l.unaryAfterIdle().p50())
            .put("unary_rtt_after_idle_ms_p99", l.unaryAfterIdle().p99())
            .put("synced_commit_ms_p50", l.syncedCommit().p50())
            .put("synced_commit_ms_p99", l.syncedCommit().p99())
            .put("synced_commit_after_idle_ms_p50", l.syncedCommitAfterIdle().p50())
            .put("synced_commit_after_idle_ms_p99", l.syncedCommitAfterIdle().p99())
            .put("stream_bytes_per_s", l.streamBytesPerSecond())
            .put("rocksdb_ingest_bytes_per_s", l.ingestBytesPerSecond()));
    List<Object> latency = new ArrayList<>();
    for (LatencyPhase.Row row : r.latency()) {
      latency.add(
          Json.object()
              .put("workers", row.workers())
              .put("layout", row.layout())
              .put("store", row.store())
              .put("channels", row.channels())
              .put("state_bytes", row.stateBytes())
              .put("traffic", row.traffic())
              .put("samples", row.total().count())
              .put("p50_ms", row.total().p50())
              .put("p99_ms", row.total().p99())
              .put("max_ms", row.total().max())
              .put("markers_p50_ms", row.markers().p50())
              .put("upload_p50_ms", row.upload().p50())
              .put("commit_p50_ms", row.commit().p50())
              .put("failed", row.failed())
              .put("limit_ms", r.limitMillis(row))
              .put("p50_over_limit", row.total().p50() / r.limitMillis(row))
              .put("cpu_ms_per_snapshot", row.cpuMillisPerSnapshot())
              .put("jit_cpu_ms_per_snapshot", row.jitMillisPerSnapshot())
              .put("critical_path_p50_ms", criticalPathJson(row.criticalPath())));
    }
    o.put("latency", latency);
    Alternating.Result ov = r.overhead().run();
    o.put(
        "overhead",
        Json.object()
            .put("workers", r.overhead().workers())
            .put("off_msgs_per_s", ov.offRate())
            .put("on_msgs_per_s", ov.onRate())
            .put("snapshots_completed", ov.completed())
            .put("snapshots_failed", ov.failed())
            .put("snapshot_p50_ms", ov.latency().p50())
            .put("snapshot_p99_ms", ov.latency().p99())
            .put("in_flight_bytes_per_snapshot", ov.inFlightBytesPerSnapshot())
            .put("ratio", ov.ratio())
            .put("ratio_min", ov.ratios().min())
            .put("ratio_max", ov.ratios().max())
            .put("pairs", ov.ratios().count())
            .put("pair_ratios", ov.ratios().values())
            .put("noise", ov.noise())
            .put("cpu_ns_per_msg_off", ov.offCpuNanosPerMessage())
            .put("cpu_ns_per_msg_on", ov.onCpuNanosPerMessage()));
    List<Object> dataplane = new ArrayList<>();
    for (DataPlanePhase.Row row : r.dataplane()) {
      dataplane.add(
          Json.object()
              .put("payload_bytes", row.payloadBytes())
              .put("cutpoint_msgs_per_s", row.cutpointRate())
              .put("raw_msgs_per_s", row.rawRate())
              .put("ratio", row.ratio())
              .put("ratio_min", row.ratios().min())
              .put("ratio_max", row.ratios().max())
              .put("pairs", row.ratios().count())
              .put("pair_ratios", row.ratios().values())
              .put("noise", row.noise())
              .put("cpu_ns_per_msg_cutpoint", row.cutpointCpuNanosPerMessage())
              .put("cpu_ns_per_msg_raw", row.rawCpuNanosPerMessage()));
    }
    o.put("dataplane", dataplane);
    List<Object> recovery = new ArrayList<>();
    for (RecoveryPhase.Row row : r.recovery().rows()) {
      recovery.add(
          Json.object()
              .put("state_bytes", row.totalBytes())
              .put("workers", row.workers())
              .put("rollback_ms", row.rollbackMillis())
              .put("server_ms", row.serverMillis())
              .put("read_and_ship_ms", row.baselineMillis())
              .put("ratio", row.skipped() == null ? row.ratio() : Double.NaN)
              .put("rollback_cpu_ms", row.rollbackCpuMillis())
              .put("read_and_ship_cpu_ms", row.baselineCpuMillis())
              .put("cpu_ratio", row.skipped() == null ? row.cpuRatio() : Double.NaN)
              .put("local_rollback_ms", row.localMillis())
              .put("local_ratio", row.localRatio())
              .put("skipped", row.skipped()));
    }
    o.put("recovery", recovery);
    List<Object> dataflow = new ArrayList<>();
    for (DataflowPhase.Row row : r.dataflow()) {
      Alternating.Result a = row.run();
      dataflow.add(
          Json.object()
              .put("p", row.p())
              .put("snapshot_p50_ms", a.latency().p50())
              .put("snapshot_p99_ms", a.latency().p99())
              .put("snapshot_max_ms", a.latency().max())
              .put("snapshots_completed", a.completed())
              .put("snapshots_failed", a.failed())
              .put("off_msgs_per_s", a.offRate())
              .put("on_msgs_per_s", a.onRate())
              .put("in_flight_bytes_per_snapshot", a.inFlightBytesPerSnapshot())
              .put("throughput_ratio", a.ratio())
              .put("ratio_min", a.ratios().min())
              .put("ratio_max", a.ratios().max())
              .put("pairs", a.ratios().count())
              .put("pair_ratios", a.ratios().values())
              .put("noise", a.noise())
              .put("cpu_ns_per_msg_off", a.offCpuNanosPerMessage())
              .put("cpu_ns_per_msg_on", a.onCpuNanosPerMessage())
              .put("critical_path_p50_ms", criticalPathJson(a.criticalPath())));
    }
    o.put("dataflow", dataflow);
    o.put(
        "incremental",
        r.incremental() == null ? null : new IncrementalReport(r.incremental()).json());
    List<Object> targets = new ArrayList<>();
    for (Target t : targets()) {
      targets.add(
          Json.object()
              .put("what", t.name())
              .put("target", t.limit())
              .put("measured", t.measured())
              .put("met", t.met()));
    }
    o.put("targets", targets);
    o.put("elapsed_s", r.elapsedSeconds());
    Json.Obj phases = Json.object();
    r.phaseSeconds().forEach(phases::put);
    o.put("phase_s", phases);
    return o.toString();
  }

  /**
   * The top-level key of an idle 1 KiB row's CPU per snapshot, as {@code
   * cpu_ms_per_snapshot_8_mesh}.
   */
  /** The rows whose critical path the tables break down: 2-worker ring and 8-worker mesh, idle. */
  static boolean brokenDown(LatencyPhase.Row row) {
    return row.stateBytes() <= 1024
        && BenchCoordinator.ROCKSDB.equals(row.store())
        && ((row.workers() == 2 && row.layout().equals("ring"))
            || (row.workers() == 8 && row.layout().equals("mesh")));
  }

  /**
   * Where the p50 of the broken-down rows goes: the p50 of each step of the critical path (the
   * trace through the last piece delivered, {@code cutpoint show ID --trace}), one line a row.
   */
  private static String criticalPaths(BenchResults r) {
    StringBuilder b = new StringBuilder();
    for (LatencyPhase.Row row : r.latency()) {
      if (!brokenDown(row) || row.criticalPath().isEmpty()) {
        continue;
      }
      if (b.length() == 0) {
        b.append(
            "Where the p50 goes (1 KiB; p50 of each step of the critical path through the"
                + " last piece delivered, ms)\n");
      }
      String what = row.workers() + " " + row.layout() + (row.traffic() ? ", traffic" : ", idle");
      b.append(pathLine(what, row.total().p50(), row.criticalPath()));
    }
    return b.length() == 0 ? "" : b.append('\n').toString();
  }

  /** The same for each P of the dataflow, under its saturating load. */
  private static String dataflowPaths(BenchResults r) {
    StringBuilder b = new StringBuilder();
    for (DataflowPhase.Row row : r.dataflow()) {
      Alternating.Result a = row.run();
      if (!a.criticalPath().isEmpty()) {
        b.append(pathLine("P = " + row.p(), a.latency().p50(), a.criticalPath()));
      }
    }
    return b.length() == 0
        ? ""
        : "Where the dataflow's p50 goes (p50 of each step of the critical path, ms)\n" + b + '\n';
  }

  /** " what: p50 T = step p50 + step p50 ... (steps sum to S)", and a line end. */
  private static String pathLine(String what, double p50, Map<String, Samples> path) {
    StringBuilder steps = new StringBuilder();
    double sum = 0;
    for (var e : path.entrySet()) {
      double stepP50 = e.getValue().p50();
      sum += stepP50;
      steps
          .append(steps.length() == 0 ? " " : " + ")
          .append(e.getKey())
          .append(' ')
          .append(ms(stepP50));
    }
    return "  " + what + ": p50 " + ms(p50) + " =" + steps + " (steps sum to " + ms(sum) + ")\n";
  }

  private static Json.Obj criticalPathJson(Map<String, Samples> path) {
    Json.Obj o = Json.object();
    path.forEach((step, samples) -> o.put(step.replace(' ', '_'), samples.p50()));
    return o;
  }

  static String cpuKey(int workers, String layout) {
    return "cpu_ms_per_snapshot_" + workers + "_" + layout;
  }

  static String ms(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.1f", v);
  }

  /**
   * What a throughput ratio whose median is above 1.0 is printed as: Cutpoint cannot make the
   * workload it adds work to faster, so the median says the cost was below what the machine's noise
   * lets a run see; it is not a gain.
   */
  static final String NO_COST = "no measurable cost (within noise)";

  /** A ratio's median with its spread; a median above 1.0 is {@link #NO_COST}. */
  static String ratio(Samples ratios) {
    if (ratios.count() == 0) {
      return "-";
    }
    String s =
        String.format(Locale.ROOT, "%.3f [%.3f-%.3f]", ratios.p50(), ratios.min(), ratios.max());
    return ratios.p50() > 1.0 ? NO_COST + ", " + s : s;
  }

  private static String times(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.1fx", v);
  }

  private static String ns(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f", v);
  }

  private static String mb(double bytesPerSecond) {
    return Double.isNaN(bytesPerSecond)
        ? "-"
        : String.format(Locale.ROOT, "%.0f", bytesPerSecond / 1e6);
  }

  private static String mib(double bytes) {
    return Double.isNaN(bytes) ? "-" : String.format(Locale.ROOT, "%.1f MiB", bytes / (1 << 20));
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f", v);
  }

  private static String rate(double v) {
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  static String bytes(long b) {
    if (b >= 1L << 30 && b % (1L << 30) == 0) {
      return (b >> 30) + " GiB";
    }
    if (b >= 1 << 20 && b % (1 << 20) == 0) {
      return (b >> 20) + " MiB";
    }
    if (b >= 1 << 10 && b % (1 << 10) == 0) {
      return (b >> 10) + " KiB";
    }
    return b + " B";
  }
}
