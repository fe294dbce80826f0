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

/** A smoke run of {@code cutpoint bench} with tiny parameters: every phase runs, the JSON is whole. */
class BenchCommandTest {

  @TempDir Path dir;

  @Test
  void tinyRunEndsWithOneJsonObjectHoldingEveryRequiredKey() throws Exception {
    Cli.Result r = Cli.run("bench", "--quick", "--json", "--workers", "8", "--samples", "3",
        "--window-ms", "200", "--recovery-mib", "1", "--dataflow", "2,3", "--large-state-kib", "16",
        "--data-dir", dir.toString());

    assertThat(r.code()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    JsonObject json = JsonParser.parseString(lines.get(lines.size() - 1)).getAsJsonObject();
    for (String key : List.of("snapshot_p50_ms_8_mesh", "snapshot_p99_ms_8_mesh", "overhead_ratio",
        "dataplane_ratio", "recovery_ratio")) {
      assertThat(json.get(key)).as(key).isNotNull();
      assertThat(json.get(key).isJsonPrimitive()).as(key + " is a number").isTrue();
      assertThat(json.get(key).getAsDouble()).as(key).isPositive();
    }
    JsonArray dataflow = json.getAsJsonArray("dataflow");
    assertThat(dataflow).hasSize(2);
    for (JsonElement e : dataflow) {
      JsonObject row = e.getAsJsonObject();
      assertThat(row.keySet()).contains("p", "snapshot_p50_ms", "snapshot_p99_ms", "throughput_ratio");
      assertThat(row.get("throughput_ratio").getAsDouble()).isPositive();
    }
    assertThat(dataflow.get(1).getAsJsonObject().get("p").getAsInt()).isEqualTo(3);
    // 8 workers x ring and mesh x 2 state sizes x idle and traffic
    assertThat(json.getAsJsonArray("latency")).hasSize(8);
    assertThat(r.out()).contains("Snapshot latency", "Overhead", "Data plane", "Recovery", "Dataflow", "Targets");
    try (var left = Files.list(dir)) {
      assertThat(left).as("every coordinator store is deleted").isEmpty();
    }
  }

  @Test
  void badParametersAreUsageErrors() {
    Cli.Result r = Cli.run("bench", "--workers", "1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--workers values must be at least 2");

    Cli.Result window = Cli.run("bench", "--window-ms", "10");
    assertThat(window.code()).isEqualTo(2);
    assertThat(window.err()).contains("--window-ms must be at least 50");
  }
}
