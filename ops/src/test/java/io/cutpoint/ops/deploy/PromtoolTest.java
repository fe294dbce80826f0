package io.cutpoint.ops.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prometheus' own checker on the shipped alert rules, their unit tests and the shipped Prometheus
 * configuration. The names in the rules are checked against a real scrape by {@code
 * MonitoringAssetsTest}; this checks that Prometheus loads them and that each alert fires when it
 * should.
 */
class PromtoolTest {

  private static final String HINT = "apt-get install prometheus";
  private final Path root = ExternalTool.repositoryRoot();

  /** The alerts {@code ops/alerts/cutpoint-rules.yml} declares, as promtool should count them. */
  static long alertRules(Path root) throws java.io.IOException {
    long n =
        Files.readAllLines(root.resolve("ops/alerts/cutpoint-rules.yml")).stream()
            .filter(line -> line.strip().startsWith("- alert:"))
            .count();
    assertThat(n).as("alerts in cutpoint-rules.yml").isPositive();
    return n;
  }

  @Test
  void theAlertRulesLoad() throws Exception {
    ExternalTool.Result r =
        ExternalTool.require("promtool", HINT)
            .run(root, "check", "rules", "ops/alerts/cutpoint-rules.yml")
            .succeeded();
    assertThat(r.output()).contains("SUCCESS: " + alertRules(root) + " rules found");
  }

  @Test
  void theAlertRulesPassTheirUnitTests() throws Exception {
    ExternalTool.Result r =
        ExternalTool.require("promtool", HINT)
            .run(root, "test", "rules", "ops/alerts/tests/cutpoint-rules-test.yml")
            .succeeded();
    assertThat(r.output()).contains("SUCCESS");
  }

  @Test
  void theShippedPrometheusConfigurationLoadsTheRules() throws Exception {
    ExternalTool.Result r =
        ExternalTool.require("promtool", HINT)
            .run(root, "check", "config", "ops/prometheus/prometheus.yml")
            .succeeded();
    assertThat(r.output())
        .contains("SUCCESS: 1 rule files found", "SUCCESS: " + alertRules(root) + " rules found");
    assertThat(Files.readString(root.resolve("ops/prometheus/prometheus.yml")))
        .contains("localhost:9464");
  }

  /** The unit tests can fail: against rules whose thresholds were loosened, they do. */
  @Test
  void theUnitTestsCatchALoosenedRule(@TempDir Path dir) throws Exception {
    ExternalTool promtool = ExternalTool.require("promtool", HINT);
    Files.createDirectories(dir.resolve("alerts/tests"));
    Files.copy(
        root.resolve("ops/alerts/tests/cutpoint-rules-test.yml"),
        dir.resolve("alerts/tests/cutpoint-rules-test.yml"));
    String rules = Files.readString(root.resolve("ops/alerts/cutpoint-rules.yml"));
    String loosened =
        rules.replace(
            "cutpoint_snapshot_latest_age_seconds > 30",
            "cutpoint_snapshot_latest_age_seconds > 300");
    assertThat(loosened).isNotEqualTo(rules);
    Files.writeString(dir.resolve("alerts/cutpoint-rules.yml"), loosened);

    ExternalTool.Result r =
        promtool.run(dir, "test", "rules", "alerts/tests/cutpoint-rules-test.yml");

    assertThat(r.code()).as(r.output()).isNotZero();
    assertThat(r.output()).contains("FAILED", "alertname: CutpointSnapshotStale");
  }
}
