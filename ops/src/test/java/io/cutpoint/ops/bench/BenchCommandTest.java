package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.cutpoint.ops.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A smoke run of {@code cutpoint bench} with tiny parameters: every phase runs, the JSON is whole.
 */
class BenchCommandTest {

  @TempDir Path dir;

  @Test
  void tinyRunEndsWithOneJsonObjectHoldingEveryRequiredKey() throws Exception {
    Cli.Result r =
        Cli.run(
            "bench",
            "--quick",
            "--json",
            "--workers",
            "8",
            "--samples",
            "3",
            "--window-ms",
            "200",
            "--recovery-mib",
            "1",
            "--dataflow",
            "2,3",
            "--large-state-kib",
            "16",
            "--incremental-kib",
            "256,256",
            "--incremental-samples",
            "2",
            "--warm-up-s",
            "1",
            "--data-dir",
            dir.toString());

    assertThat(r.code()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    JsonObject json = JsonParser.parseString(lines.get(lines.size() - 1)).getAsJsonObject();
    // where the kernel gives huge pages on request, a child JVM that asks for them measured
    JsonObject pages = json.getAsJsonObject("transparent_huge_pages");
    boolean onRequest = pages.get("system").getAsString().equals("madvise");
    assertThat(pages.get("jvm").getAsBoolean()).as("the measuring JVM asked").isEqualTo(onRequest);
    assertThat(r.err().contains("measuring in a child JVM")).isEqualTo(onRequest);
    // the throughput ratios are checked against their pairs in assertConsistent
    assertThat(json.keySet()).contains("overhead_ratio", "dataplane_ratio");
    for (String key :
        List.of(
            "snapshot_p50_ms_8_mesh",
            "snapshot_p99_ms_8_mesh",
            "snapshot_p50_ms_8_mesh_s3",
            "snapshot_p99_ms_8_mesh_s3",
            "recovery_ratio",
            "peak_heap_mib_recovery",
            "peak_heap_mib_local_recovery")) {
      assertThat(json.get(key)).as(key).isNotNull();
      assertThat(json.get(key).isJsonPrimitive()).as(key + " is a number").isTrue();
      assertThat(json.get(key).getAsDouble()).as(key).isPositive();
    }
    JsonArray dataflow = json.getAsJsonArray("dataflow");
    assertThat(dataflow).hasSize(2);
    for (JsonElement e : dataflow) {
      JsonObject row = e.getAsJsonObject();
      assertThat(row.keySet())
          .contains("p", "snapshot_p50_ms", "snapshot_p99_ms", "throughput_ratio");
    }
    assertThat(dataflow.get(1).getAsJsonObject().get("p").getAsInt()).isEqualTo(3);
    JsonObject warmUp = json.getAsJsonObject("warm_up");
    assertThat(warmUp.get("snapshots").getAsInt()).as("the warm-up took snapshots").isPositive();
    // --warm-up-s 1 bounds its rounds; the cluster's start and its close come on top
    assertThat(warmUp.get("s").getAsDouble()).isBetween(1.0, 10.0);
    assertThat(json.getAsJsonObject("phase_s").keySet()).startsWith("warm-up", "latency");
    assertThat(r.out()).containsPattern("\nwarm-up: \\d+ s of [\\d,]+ unmeasured snapshots");
    // 8 workers x ring and mesh x 2 state sizes x idle and traffic, and the mesh idle on S3
    assertThat(json.getAsJsonArray("latency")).hasSize(9);
    assertThat(r.out())
        .contains(
            "Snapshot latency",
            "Overhead",
            "Data plane",
            "Recovery",
            "Dataflow",
            "Incremental snapshots",
            "Targets");
    assertConsistent(json);
    assertIncremental(json, r.out());
    try (var left = Files.list(dir)) {
      assertThat(left).as("every coordinator store is deleted").isEmpty();
    }
  }

  /** The numbers agree with each other: percentiles in order, each ratio the quotient it names. */
  private static void assertConsistent(JsonObject json) {
    assertThat(num(json, "snapshot_p50_ms_8_mesh"))
        .isLessThanOrEqualTo(num(json, "snapshot_p99_ms_8_mesh"));
    assertThat(num(json, "snapshot_p50_ms_8_mesh_s3"))
        .isLessThanOrEqualTo(num(json, "snapshot_p99_ms_8_mesh_s3"));
    boolean headlineRow = false;
    boolean s3Row = false;
    String previous = "";
    for (JsonElement e : json.getAsJsonArray("latency")) {
      JsonObject row = e.getAsJsonObject();
      assertThat(row.get("workers").getAsInt()).isEqualTo(8);
      assertPercentiles(row, "p50_ms", "p99_ms", "max_ms");
      assertThat(row.get("samples").getAsInt()).as("samples of %s", row).isBetween(1, 3);
      assertThat(row.get("samples").getAsInt() + row.get("failed").getAsInt())
          .as("samples + failed of %s", row)
          .isLessThanOrEqualTo(3);
      boolean idleMesh =
          row.get("layout").getAsString().equals("mesh")
              && !row.get("traffic").getAsBoolean()
              && row.get("state_bytes").getAsInt() == 1024;
      if (row.get("store").getAsString().equals("s3")) {
        assertThat(idleMesh).as("the S3 row is the idle 1 KiB mesh: %s", row).isTrue();
        assertThat(previous).as("the S3 row follows its RocksDB row").isEqualTo("rocksdb mesh");
        s3Row =
            num(row, "p50_ms") == num(json, "snapshot_p50_ms_8_mesh_s3")
                && num(row, "p99_ms") == num(json, "snapshot_p99_ms_8_mesh_s3");
      } else {
        assertThat(row.get("store").getAsString()).isEqualTo("rocksdb");
        headlineRow |=
            idleMesh
                && num(row, "p50_ms") == num(json, "snapshot_p50_ms_8_mesh")
                && num(row, "p99_ms") == num(json, "snapshot_p99_ms_8_mesh");
      }
      previous = row.get("store").getAsString() + (idleMesh ? " mesh" : "");
    }
    assertThat(headlineRow).as("the headline p50/p99 come from an idle 8-worker mesh row").isTrue();
    assertThat(s3Row).as("the S3 p50/p99 come from the S3 row").isTrue();

    JsonObject overhead = json.getAsJsonObject("overhead");
    assertMedianOfPairs(json, "overhead_ratio", overhead);
    assertPercentiles(overhead, "snapshot_p50_ms", "snapshot_p99_ms");

    double minDataplane = Double.MAX_VALUE;
    for (JsonElement e : json.getAsJsonArray("dataplane")) {
      JsonObject row = e.getAsJsonObject();
      if (assertMedianOfPairs(row, "ratio", row)) {
        minDataplane = Math.min(minDataplane, num(row, "ratio"));
      }
    }
    if (minDataplane == Double.MAX_VALUE) {
      assertThat(json.get("dataplane_ratio").isJsonNull())
          .as("dataplane_ratio without any pair")
          .isTrue();
    } else {
      assertThat(num(json, "dataplane_ratio"))
          .as("dataplane_ratio is the worst payload's")
          .isEqualTo(minDataplane);
    }

    double maxRecovery = 0;
    for (JsonElement e : json.getAsJsonArray("recovery")) {
      JsonObject row = e.getAsJsonObject();
      if (row.has("skipped") && !row.get("skipped").isJsonNull()) {
        continue;
      }
      assertRatio(num(row, "ratio"), num(row, "rollback_ms"), num(row, "read_and_ship_ms"));
      assertThat(row.keySet()).contains("rollback_cpu_ms", "read_and_ship_cpu_ms", "cpu_ratio");
      if (num(row, "rollback_cpu_ms") > 0 && num(row, "read_and_ship_cpu_ms") > 0) {
        assertRatio(
            num(row, "cpu_ratio"), num(row, "rollback_cpu_ms"), num(row, "read_and_ship_cpu_ms"));
      }
      maxRecovery = Math.max(maxRecovery, num(row, "ratio"));
    }
    assertThat(num(json, "recovery_ratio"))
        .as("recovery_ratio is the worst size's")
        .isEqualTo(maxRecovery);

    for (JsonElement e : json.getAsJsonArray("dataflow")) {
      JsonObject row = e.getAsJsonObject();
      assertPercentiles(row, "snapshot_p50_ms", "snapshot_p99_ms", "snapshot_max_ms");
      assertMedianOfPairs(row, "throughput_ratio", row);
      assertThat(row.get("snapshots_completed").getAsInt()).as("snapshots of %s", row).isPositive();
    }
  }

  /**
   * The incremental section ran by default on its two shapes (here 256 KiB a worker), and its
   * targets are also in the run's list of targets.
   */
  private static void assertIncremental(JsonObject json, String text) {
    assertThat(json.getAsJsonObject("phase_s").keySet()).contains("incremental");
    JsonObject inc = json.getAsJsonObject("incremental");
    JsonArray rows = inc.getAsJsonArray("rows");
    // the 8-worker mesh: 3 fractions x 2 patterns; the quick run's 2-worker ring: its target's row
    assertThat(rows).hasSize(7);
    assertThat(rows.asList())
        .filteredOn(e -> e.getAsJsonObject().get("layout").getAsString().equals("ring"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(num(e.getAsJsonObject(), "changed_fraction")).isEqualTo(0.001);
              assertThat(e.getAsJsonObject().get("pattern").getAsString()).isEqualTo("one run");
            });
    for (JsonElement e : rows) {
      JsonObject row = e.getAsJsonObject();
      assertThat(row.keySet())
          .contains(
              "state_bytes",
              "workers",
              "layout",
              "changed_fraction",
              "pattern",
              "uploaded_bytes_p50",
              "uploaded_fraction",
              "p50_ms",
              "p99_ms",
              "full_p50_ms",
              "ratio_to_full");
      assertThat(row.get("state_bytes").getAsInt()).isEqualTo(256 << 10);
      assertThat(row.get("workers").getAsInt())
          .isEqualTo(row.get("layout").getAsString().equals("mesh") ? 8 : 2);
      assertPercentiles(row, "p50_ms", "p99_ms");
      assertThat(num(row, "uploaded_fraction")).as("%s", row).isBetween(0.0, 1.0);
      if (row.get("pattern").getAsString().equals("one run")
          && num(row, "changed_fraction") <= 0.01) {
        assertThat(num(row, "uploaded_fraction")).as("a small change: %s", row).isLessThan(1.0);
      }
    }
    for (JsonElement e : inc.getAsJsonArray("full")) {
      assertThat(num(e.getAsJsonObject(), "uploaded_fraction")).as("%s", e).isEqualTo(1.0);
    }
    assertThat(num(inc, "small_p50_ms")).isPositive();
    assertThat(inc.getAsJsonArray("targets")).hasSize(4);
    List<String> all = new java.util.ArrayList<>();
    json.getAsJsonArray("targets")
        .forEach(t -> all.add(t.getAsJsonObject().get("what").getAsString()));
    inc.getAsJsonArray("targets")
        .forEach(t -> assertThat(all).contains(t.getAsJsonObject().get("what").getAsString()));
    assertThat(text).contains("256 KiB x 8 mesh, 1% changed in one run: % of state bytes uploaded");
  }

  private static double num(JsonObject o, String key) {
    assertThat(o.get(key)).as("%s in %s", key, o).isNotNull();
    return o.get(key).getAsDouble();
  }

  private static void assertPercentiles(JsonObject o, String... keys) {
    for (int i = 1; i < keys.length; i++) {
      assertThat(num(o, keys[i - 1]))
          .as("%s <= %s in %s", keys[i - 1], keys[i], o)
          .isLessThanOrEqualTo(num(o, keys[i]));
    }
    assertThat(num(o, keys[0])).as("%s in %s", keys[0], o).isPositive();
  }

  /**
   * A ratio is the quotient it names, finite and positive (a throughput ratio may pass 1 a little
   * by noise). The report rounds a ratio to 3 decimals and the rates it divides, hence the slack.
   */
  private static void assertRatio(double ratio, double numerator, double denominator) {
    assertThat(denominator).isPositive();
    assertThat(ratio)
        .isPositive()
        .isFinite()
        .isCloseTo(
            numerator / denominator, org.assertj.core.data.Offset.offset(0.0006 + 0.001 * ratio));
  }

  /**
   * A throughput ratio ({@code key} of {@code holder}) is the nearest-rank median of {@code row}'s
   * interleaved pairs' ratios, with their min and max (each rounded to 3 decimals by the report).
   * Under load a 200 ms window can deliver nothing: a pair whose baseline window is empty has no
   * ratio (it is dropped), one whose measured window is empty has ratio 0. Without any pair the
   * ratio is null. Returns whether there was a pair.
   */
  private static boolean assertMedianOfPairs(JsonObject holder, String key, JsonObject row) {
    List<Double> pairs = new java.util.ArrayList<>();
    row.getAsJsonArray("pair_ratios").forEach(p -> pairs.add(p.getAsDouble()));
    assertThat(num(row, "pairs")).as("pairs of %s", row).isEqualTo(pairs.size());
    if (pairs.isEmpty()) {
      assertThat(holder.get(key).isJsonNull()).as("no pair, no %s in %s", key, holder).isTrue();
      return false;
    }
    assertThat(pairs)
        .as("pair ratios of %s", row)
        .allSatisfy(p -> assertThat(p).isNotNegative().isFinite());
    List<Double> sorted = pairs.stream().sorted().toList();
    assertThat(num(holder, key))
        .as("%s: median of %s", key, row)
        .isEqualTo(sorted.get((sorted.size() + 1) / 2 - 1));
    assertThat(num(row, "ratio_min")).isEqualTo(sorted.get(0));
    assertThat(num(row, "ratio_max")).isEqualTo(sorted.get(sorted.size() - 1));
    return true;
  }

  @Test
  void badParametersAreUsageErrors() {
    Cli.Result r = Cli.run("bench", "--workers", "1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--workers values must be at least 2");

    Cli.Result window = Cli.run("bench", "--window-ms", "10");
    assertThat(window.code()).isEqualTo(2);
    assertThat(window.err()).contains("--window-ms must be at least 50");

    Cli.Result kib = Cli.run("bench", "--incremental-kib", "2");
    assertThat(kib.code()).isEqualTo(2);
    assertThat(kib.err()).contains("--incremental-kib takes one or two values of 4..262144");

    Cli.Result warmUp = Cli.run("bench", "--warm-up-s", "-1");
    assertThat(warmUp.code()).isEqualTo(2);
    assertThat(warmUp.err()).contains("--warm-up-s must be 0..600");
    Cli.Result incSamples = Cli.run("bench", "--incremental-samples", "0");
    assertThat(incSamples.code()).isEqualTo(2);
    assertThat(incSamples.err()).contains("--incremental-samples must be at least 1");
  }
}
