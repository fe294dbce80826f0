package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.cutpoint.ops.Cli;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw limits, the critical-path floor, CPU per snapshot and the ratio spreads of {@code
 * cutpoint bench}: the arithmetic on its own, and one tiny run end to end.
 */
class BenchLimitsTest {

  @TempDir Path dir;

  @Test
  void markerDepthFollowsTheCoordinatorsInitiators() {
    assertThat(CriticalPath.markerDepth(Layout.ring(2))).isEqualTo(2);
    assertThat(CriticalPath.markerDepth(Layout.ring(5)))
        .as("one initiator, the marker goes round")
        .isEqualTo(5);
    assertThat(CriticalPath.markerDepth(Layout.mesh(8)))
        .as("initiator, then everyone's markers")
        .isEqualTo(2);
    assertThat(CriticalPath.markerDepth(Layout.dataflow(3)))
        .as("every source initiates")
        .isEqualTo(1);
  }

  @Test
  void limitIsTwoRoundTripsHopsTransferAndOneCommitAfterIdle() {
    LimitsPhase.Result l =
        new LimitsPhase.Result(
            samples(0.1), samples(0.2), samples(0.9), samples(0.4), samples(1.5), 1e9, 5e8);
    // 2 x 0.2 (trigger, upload) + (1 + 2) x 0.1 (start, markers) + 1.5 (the commit after idle, not
    // the 0.4 of back-to-back commits), 1 KiB x 8 at 500
    // MB/s
    assertThat(CriticalPath.limitMillis(Layout.mesh(8), 1024, l))
        .isCloseTo(2.2 + 8 * 1024 / 5e8 * 1000, within(1e-9));
    // 16 MiB x 2 workers at the slower rate, the ingest
    assertThat(CriticalPath.limitMillis(Layout.ring(2), 16 << 20, l))
        .isCloseTo(0.4 + 0.3 + 1.5 + 2.0 * (16 << 20) / 5e8 * 1000, within(1e-9));
    // a stream slower than the store: each worker's state on its own stream, all at once
    LimitsPhase.Result slowStream =
        new LimitsPhase.Result(
            samples(0.1), samples(0.2), samples(0.9), samples(0.4), samples(1.5), 1e8, 5e8);
    assertThat(CriticalPath.limitMillis(Layout.ring(2), 16 << 20, slowStream))
        .isCloseTo(0.4 + 0.3 + 1.5 + (16 << 20) / 1e8 * 1000, within(1e-9));
  }

  @Test
  void aMedianRatioAboveOneIsNoiseAndMeetsNoTarget() {
    Samples gain = samples(0.98, 1.04, 1.07);
    assertThat(BenchReport.ratio(gain))
        .isEqualTo("no measurable cost (within noise), 1.040 [0.980-1.070]");
    BenchReport.Target noisy =
        new BenchReport.Target("t", ">= 0.97", gain.p50(), false, 0.97, true);
    assertThat(noisy.met()).as("noise meets nothing").isNull();

    Samples loss = samples(0.93, 0.95, 1.01);
    assertThat(BenchReport.ratio(loss)).isEqualTo("0.950 [0.930-1.010]");
    assertThat(BenchReport.ratio(samples(0.99, 1.0, 1.2)))
        .as("a median of exactly 1.0 is a ratio, not noise")
        .isEqualTo("1.000 [0.990-1.200]");
    assertThat(new BenchReport.Target("t", ">= 0.97", loss.p50(), false, 0.97, false).met())
        .isFalse();
    assertThat(BenchReport.ratio(new Samples())).isEqualTo("-");
  }

  @Test
  void minIsTheSmallestSample() {
    assertThat(samples(3, 1, 2).min()).isEqualTo(1);
    assertThat(new Samples().min()).isNaN();
  }

  @Test
  void tinyRunReportsLimitsLimitMultiplesCpuPerSnapshotAndRatioSpreads() {
    Cli.Result r =
        Cli.run(
            "bench",
            "--no-fork", // measured here: the huge pages reported are this JVM's
            "--quick",
            "--json",
            "--workers",
            "8",
            "--idle-rings",
            "2",
            "--samples",
            "3",
            "--window-ms",
            "200",
            "--recovery-mib",
            "1",
            "--dataflow",
            "2",
            "--large-state-kib",
            "16",
            "--no-incremental",
            "--warm-up-s",
            "0",
            "--data-dir",
            dir.toString());

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).doesNotContain("Incremental snapshots");
    assertThat(r.out())
        .contains(
            "Limits of this machine",
            "p50/limit",
            "cpu/snap",
            "of it jit",
            "cpu ns/msg",
            "synced RocksDB batch commit (ms)",
            "total wall time",
            "warm-up: none (--warm-up-s 0)",
            "transparent huge pages: ");
    List<String> lines = r.out().lines().toList();
    JsonObject json = JsonParser.parseString(lines.get(lines.size() - 1)).getAsJsonObject();

    JsonObject phases = json.getAsJsonObject("phase_s");
    assertThat(phases.keySet())
        .containsExactly(
            "warm-up", "latency", "limits", "overhead", "dataplane", "recovery", "dataflow");
    double phaseSum = 0;
    for (String phase : phases.keySet()) {
      phaseSum += phases.get(phase).getAsDouble();
    }
    assertThat(phaseSum).isLessThanOrEqualTo(json.get("elapsed_s").getAsDouble() + 0.01);
    assertThat(json.get("incremental").isJsonNull()).as("--no-incremental").isTrue();
    JsonObject hugePages = json.getAsJsonObject("transparent_huge_pages");
    assertThat(hugePages.get("system").getAsString())
        .isEqualTo(HugePages.systemMode(Path.of("/sys/kernel/mm/transparent_hugepage/enabled")));
    assertThat(hugePages.get("used").getAsBoolean()).isEqualTo(HugePages.ofThisJvm().used());
    assertThat(r.err()).doesNotContain("child JVM");

    JsonObject limits = json.getAsJsonObject("limits");
    for (String key :
        List.of(
            "marker_hop_ms_p50",
            "unary_rtt_ms_p50",
            "unary_rtt_after_idle_ms_p50",
            "synced_commit_ms_p50",
            "synced_commit_after_idle_ms_p50",
            "stream_bytes_per_s",
            "rocksdb_ingest_bytes_per_s")) {
      assertThat(limits.get(key).getAsDouble()).as(key).isPositive();
    }
    for (String latency :
        List.of(
            "marker_hop_ms",
            "unary_rtt_ms",
            "unary_rtt_after_idle_ms",
            "synced_commit_ms",
            "synced_commit_after_idle_ms")) {
      assertThat(limits.get(latency + "_p50").getAsDouble())
          .as(latency)
          .isLessThanOrEqualTo(limits.get(latency + "_p99").getAsDouble());
    }

    assertThat(json.get("snapshot_p50_ms_2_ring").getAsDouble()).isPositive();
    assertThat(json.get("snapshot_p50_ms_128_ring").isJsonNull())
        .as("no 128-worker ring was asked for")
        .isTrue();
    // CPU per snapshot is process CPU minus the idle baseline: in a 3-sample run on a shared
    // machine the difference can fall below zero, so only its presence is checked here
    assertThat(Double.isFinite(json.get("cpu_ms_per_snapshot_8_mesh").getAsDouble())).isTrue();
    // the JIT's part is its compiler threads' own time, never below zero
    assertThat(json.get("jit_cpu_ms_per_snapshot_8_mesh").getAsDouble()).isNotNegative();
    for (String idle : List.of("8_ring", "2_ring")) {
      assertThat(json.get("cpu_ms_per_snapshot_" + idle)).as(idle).isNotNull();
    }
    assertThat(json.has("cpu_ms_per_snapshot_2_mesh"))
        .as("no 2-worker mesh was measured")
        .isFalse();

    // 8 workers: ring and mesh x 2 states x idle and traffic, the mesh idle on S3 too; then the
    // idle-only 2-worker ring
    assertThat(json.getAsJsonArray("latency")).hasSize(10);
    assertThat(json.getAsJsonArray("latency").asList())
        .filteredOn(e -> e.getAsJsonObject().get("store").getAsString().equals("s3"))
        .hasSize(1);
    for (JsonElement e : json.getAsJsonArray("latency")) {
      JsonObject row = e.getAsJsonObject();
      if (row.get("store").getAsString().equals("s3")) {
        assertThat(row.get("limit_ms").isJsonNull()).as("no limit is known for S3").isTrue();
        continue;
      }
      double limit = row.get("limit_ms").getAsDouble();
      assertThat(limit).isPositive();
      double multiple = row.get("p50_ms").getAsDouble() / limit; // both printed to 3 decimals
      assertThat(row.get("p50_over_limit").getAsDouble())
          .isCloseTo(multiple, within(0.01 * multiple + 0.002));
      assertThat(row.get("cpu_ms_per_snapshot").isJsonNull())
          .as("CPU is measured on idle rows only")
          .isEqualTo(row.get("traffic").getAsBoolean());
      assertThat(row.get("jit_cpu_ms_per_snapshot").isJsonNull())
          .as("and so is the JIT's part of it")
          .isEqualTo(row.get("traffic").getAsBoolean());
    }
    JsonObject last = json.getAsJsonArray("latency").get(9).getAsJsonObject();
    assertThat(last.get("workers").getAsInt()).isEqualTo(2);
    assertThat(last.get("layout").getAsString()).isEqualTo("ring");
    assertThat(last.get("traffic").getAsBoolean()).isFalse();

    // where the p50 goes: the trace's critical path, step by step, for the 2-ring and 8-mesh,
    // idle and (the 8-mesh; the 2-ring was measured idle only here) under traffic
    assertThat(r.out())
        .contains(
            "Where the p50 goes",
            "  2 ring, idle: p50 ",
            "  8 mesh, idle: p50 ",
            "  8 mesh, traffic: p50 ");
    for (JsonElement e : json.getAsJsonArray("latency")) {
      assertCriticalPath(e.getAsJsonObject());
    }

    JsonObject overhead = json.getAsJsonObject("overhead");
    assertSpread(overhead, "ratio", 6);
    assertThat(overhead.get("ratio").getAsDouble())
        .isEqualTo(json.get("overhead_ratio").getAsDouble());
    assertThat(json.get("overhead_ratio_noise").getAsBoolean())
        .isEqualTo(overhead.get("noise").getAsBoolean());
    assertThat(overhead.get("cpu_ns_per_msg_off").getAsDouble()).isPositive();
    assertThat(overhead.get("cpu_ns_per_msg_on").getAsDouble()).isPositive();
    for (JsonElement e : json.getAsJsonArray("dataplane")) {
      assertSpread(e.getAsJsonObject(), "ratio", 3);
      assertThat(e.getAsJsonObject().get("cpu_ns_per_msg_cutpoint").getAsDouble()).isPositive();
      assertThat(e.getAsJsonObject().get("cpu_ns_per_msg_raw").getAsDouble()).isPositive();
    }
    for (JsonElement e : json.getAsJsonArray("dataflow")) {
      assertSpread(e.getAsJsonObject(), "throughput_ratio", 6);
      assertThat(e.getAsJsonObject().get("cpu_ns_per_msg_on").getAsDouble()).isPositive();
      // where the dataflow's p50 goes, under its load: the same steps as the idle rows
      assertCriticalPath(e.getAsJsonObject());
    }
    assertThat(r.out()).contains("Where the dataflow's p50 goes", "  P = 2: p50 ");
  }

  /** The row's critical path has every step, in order, and a synced commit takes time. */
  private static void assertCriticalPath(JsonObject row) {
    JsonObject path = row.getAsJsonObject("critical_path_p50_ms");
    assertThat(path.keySet())
        .as("the steps of %s", row)
        .containsExactly(
            "trigger_and_reply",
            "start_to_capture",
            "state_capture",
            "markers",
            "to_upload",
            "upload",
            "verify_and_commit");
    assertThat(path.get("verify_and_commit").getAsDouble())
        .as("the synced commit of %s", row)
        .isPositive();
  }

  /**
   * min <= median <= max over up to {@code pairs} pairs (a pair whose reference window counted
   * nothing has no ratio), and the noise flag says whether the median is above 1.
   */
  private static void assertSpread(JsonObject row, String median, int pairs) {
    double m = row.get(median).getAsDouble();
    assertThat(row.get("pairs").getAsInt()).isBetween(1, pairs);
    assertThat(row.get("ratio_min").getAsDouble()).isLessThanOrEqualTo(m);
    assertThat(row.get("ratio_max").getAsDouble()).isGreaterThanOrEqualTo(m);
    if (Math.abs(m - 1.0) > 0.001) { // printed to 3 decimals
      assertThat(row.get("noise").getAsBoolean()).isEqualTo(m > 1.0);
    }
  }

  private static Samples samples(double... values) {
    Samples s = new Samples();
    for (double v : values) {
      s.add(v);
    }
    return s;
  }
}
