package io.cutpoint.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The incremental-snapshot section on a tiny plan (2 workers, 256 KiB states, 2 samples a row): a
 * small change uploads part of the state, every change uploads at least the bytes it changed, the
 * full-upload baseline uploads all of it, the state as entries and the object store's row upload
 * part of the state too, and the report's numbers are the quotients they name.
 */
class BenchIncrementalTest {

  private static final int STATE = 256 << 10;

  @TempDir Path dir;

  @Test
  void aSmallChangeUploadsPartOfTheStateAndTheFullBaselineAllOfIt() throws Exception {
    BenchPlan plan =
        BenchPlan.quick()
            .with(null, null, 5, null, null, null, null, dir)
            .withIncremental(
                new IncrementalPhase.Plan(
                    List.of(
                        new IncrementalPhase.Shape(2, "mesh", STATE, 2),
                        new IncrementalPhase.Shape(2, "ring", STATE, 2)),
                    IncrementalPhase.Plan.FRACTIONS,
                    8_000));
    List<String> progress = new ArrayList<>();

    IncrementalPhase.Result result = IncrementalPhase.run(plan, progress::add);

    IncrementalReport report = new IncrementalReport(result);
    JsonObject json = JsonParser.parseString(report.json().toString()).getAsJsonObject();
    // 2 shapes x 3 fractions x 2 patterns
    assertThat(json.getAsJsonArray("rows")).hasSize(12);
    for (JsonElement e : json.getAsJsonArray("rows")) {
      JsonObject row = e.getAsJsonObject();
      assertThat(row.get("state_bytes").getAsInt()).isEqualTo(STATE);
      assertThat(row.get("workers").getAsInt()).isEqualTo(2);
      assertThat(row.get("samples").getAsInt()).as("samples of %s", row).isBetween(1, 2);
      double p50 = num(row, "p50_ms");
      assertThat(p50).as("p50 of %s", row).isPositive().isLessThanOrEqualTo(num(row, "p99_ms"));
      // the chunks that hold a changed byte are new: each worker uploads at least what it changed
      long uploaded = row.get("uploaded_bytes_p50").getAsLong();
      assertThat(uploaded)
          .as("uploaded bytes of %s", row)
          .isGreaterThanOrEqualTo(2L * row.get("changed_bytes").getAsInt())
          .isLessThanOrEqualTo(2L * STATE);
      assertThat(num(row, "uploaded_fraction"))
          .as("uploaded fraction of %s", row)
          .isCloseTo(uploaded / (2.0 * STATE), within(0.0006));
      if (num(row, "changed_fraction") <= 0.01) {
        assertThat(num(row, "uploaded_fraction"))
            .as("a change of 1%% or less uploads part of the state: %s", row)
            .isLessThan(1.0);
      }
      assertThat(num(row, "ratio_to_full"))
          .as("ratio of %s", row)
          .isCloseTo(p50 / num(row, "full_p50_ms"), within(0.002 + 0.001 * p50));
      assertThat(row.getAsJsonObject("critical_path_p50_ms").keySet())
          .contains("trigger_and_reply", "to_upload", "upload", "verify_and_commit");
    }
    assertThat(json.getAsJsonArray("full")).hasSize(2);
    for (JsonElement e : json.getAsJsonArray("full")) {
      JsonObject full = e.getAsJsonObject();
      assertThat(full.get("failed").getAsInt()).as("failed full uploads: %s", full).isZero();
      assertThat(full.get("uploaded_bytes_p50").getAsLong())
          .as("a full upload sends every state byte: %s", full)
          .isEqualTo(2L * STATE);
      assertThat(num(full, "uploaded_fraction")).isEqualTo(1.0);
    }
    assertThat(json.get("small_workers").getAsInt()).isEqualTo(2);
    assertThat(json.get("small_layout").getAsString()).isEqualTo("mesh");
    assertThat(json.get("small_state_bytes").getAsInt()).isEqualTo(1024);
    assertThat(json.get("small_samples").getAsInt()).isBetween(1, 5);
    assertThat(num(json, "small_p50_ms")).isPositive();

    List<String> keys = new ArrayList<>();
    for (JsonElement e : json.getAsJsonArray("targets")) {
      JsonObject target = e.getAsJsonObject();
      keys.add(target.get("key").getAsString());
      assertThat(target.get("met").isJsonPrimitive()).as("met or missed: %s", target).isTrue();
      assertThat(num(target, "measured")).as("%s", target).isPositive();
    }
    assertThat(keys)
        .containsExactly(
            "p50_over_small_p50", "uploaded_percent", "keyed_p50_over_small_p50", "large_p50_ms");
    JsonObject onePercent = row(json, "mesh", 0.01, "one run");
    JsonObject ratio = json.getAsJsonArray("targets").get(0).getAsJsonObject();
    assertThat(num(ratio, "measured"))
        .isCloseTo(
            num(onePercent, "p50_ms") / num(json, "small_p50_ms"),
            within(0.01 * num(ratio, "measured") + 0.002));
    assertThat(num(json.getAsJsonArray("targets").get(1).getAsJsonObject(), "measured"))
        .isCloseTo(num(onePercent, "uploaded_percent"), within(0.001));
    JsonObject keyed = json.getAsJsonObject("keyed");
    assertThat(num(json.getAsJsonArray("targets").get(2).getAsJsonObject(), "measured"))
        .isCloseTo(
            num(keyed, "p50_ms") / num(json, "small_p50_ms"),
            within(0.01 * num(keyed, "p50_ms") / num(json, "small_p50_ms") + 0.002));
    assertThat(num(json.getAsJsonArray("targets").get(3).getAsJsonObject(), "measured"))
        .isEqualTo(num(row(json, "ring", 0.001, "one run"), "p50_ms"));
    assertThat(keyed.get("layout").getAsString()).isEqualTo("mesh");
    assertThat(keyed.get("state_bytes").getAsInt()).isEqualTo(STATE);
    assertThat(keyed.get("value_bytes").getAsInt()).isEqualTo(KeyedBenchApp.VALUE_BYTES);
    assertThat(keyed.get("failed").getAsInt()).as("failed as entries: %s", keyed).isZero();
    // 1% of 256 entries is 3 entries of 1 KiB each worker: the chunks that hold them, not the state
    assertThat(keyed.get("uploaded_bytes_p50").getAsLong())
        .as("a run of changed entries uploads the chunks that hold them: %s", keyed)
        .isGreaterThanOrEqualTo(2L * 3 * KeyedBenchApp.VALUE_BYTES)
        .isLessThan(2L * STATE);

    String text = report.tables();
    assertThat(text)
        .contains(
            "Incremental snapshots",
            "one run",
            "scattered",
            "256 KiB x 2 mesh, full (content chunks off)",
            "1 KiB x 2 mesh, content chunks",
            "Where the p50 goes",
            "256 KiB x 2 mesh, 1% changed in one run: p50 / 1 KiB x 2 mesh p50",
            "256 KiB x 2 ring, 0.1% changed in one run: p50 ms",
            "peak heap");
    assertThat(text.lines().filter(l -> l.endsWith(" met") || l.endsWith(" MISSED")))
        .as("each target says met or MISSED:%n%s", text)
        .hasSize(4);
    assertThat(text).contains("256 KiB x 2 mesh as 1 KiB entries, 1% changed in one run");
    JsonObject shared = json.getAsJsonObject("shared");
    assertThat(shared.get("layout").getAsString()).isEqualTo("ring");
    assertThat(shared.get("workers").getAsInt()).isEqualTo(2);
    assertThat(shared.get("state_bytes").getAsInt()).isEqualTo(STATE);
    assertThat(num(shared, "changed_fraction")).isEqualTo(0.01);
    assertThat(shared.get("failed").getAsInt())
        .as("failed on the object store: %s", shared)
        .isZero();
    assertThat(shared.get("uploaded_bytes_p50").getAsLong())
        .as("the object store holds the unchanged chunks: %s", shared)
        .isGreaterThanOrEqualTo(2L * STATE / 100)
        .isLessThan(2L * STATE);
    assertThat(text).contains("on the object store", "256 KiB x 2 ring, 1% changed in one run");
    assertThat(progress).hasSize(6).last().asString().endsWith("on the object store");
    try (var left = Files.list(dir)) {
      assertThat(left).as("every coordinator store is deleted").isEmpty();
    }
  }

  private static JsonObject row(JsonObject json, String layout, double fraction, String pattern) {
    for (JsonElement e : json.getAsJsonArray("rows")) {
      JsonObject row = e.getAsJsonObject();
      if (row.get("layout").getAsString().equals(layout)
          && num(row, "changed_fraction") == fraction
          && row.get("pattern").getAsString().equals(pattern)) {
        return row;
      }
    }
    throw new AssertionError("no row " + layout + " " + fraction + " " + pattern + " in " + json);
  }

  private static double num(JsonObject o, String key) {
    assertThat(o.get(key)).as("%s in %s", key, o).isNotNull();
    assertThat(o.get(key).isJsonNull()).as("%s in %s", key, o).isFalse();
    return o.get(key).getAsDouble();
  }
}
