package io.cutpoint.ops.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.ops.demo.BankNode;
import io.cutpoint.ops.demo.CaptureLog;
import io.cutpoint.ops.server.Metrics;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules and the Grafana dashboard only use metric names that a real coordinator exposes:
 * every name they mention is found in a scrape of the registry {@code cutpoint server} builds,
 * taken after a snapshot and a rollback.
 */
class MonitoringAssetsTest {

  private static final Pattern METRIC =
      Pattern.compile("\\b((?:cutpoint|jvm|process|system)_[a-z0-9_]+)\\b");
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE);

  private static Path opsDir() {
    return Path.of(System.getProperty("cutpoint.ops.dir", "."));
  }

  /** Metric names used in a rules file or a dashboard. */
  static Set<String> namesUsedIn(String text) {
    Set<String> names = new TreeSet<>();
    Matcher m = METRIC.matcher(text);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  /** Sample names of a Prometheus text scrape. */
  static Set<String> namesExposedIn(String scrape) {
    Set<String> names = new TreeSet<>();
    Matcher m = SAMPLE.matcher(scrape);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  static Set<String> missing(Set<String> used, Set<String> exposed) {
    Set<String> missing = new TreeSet<>(used);
    missing.removeAll(exposed);
    return missing;
  }

  @Test
  void theCheckCatchesANameThatIsNotExposed() {
    String scrape =
        "# TYPE cutpoint_snapshots_total counter\ncutpoint_snapshots_total{outcome=\"complete\"} 1.0\n";
    Set<String> exposed = namesExposedIn(scrape);
    assertThat(exposed).containsExactly("cutpoint_snapshots_total");
    assertThat(missing(namesUsedIn("rate(cutpoint_snapshots_total[5m])"), exposed)).isEmpty();
    assertThat(
            missing(
                namesUsedIn(
                    "rate(cutpoint_snapshot_total[5m]) + cutpoint_snapshot_duration_bucket"),
                exposed))
        .containsExactly("cutpoint_snapshot_duration_bucket", "cutpoint_snapshot_total");
  }

  @Test
  void dashboardIsJsonWithAQueryInEveryPanelOnTheDatasourceVariable() throws Exception {
    com.google.gson.JsonObject d =
        com.google.gson.JsonParser.parseString(
                Files.readString(opsDir().resolve("dashboards/cutpoint.json")))
            .getAsJsonObject();
    assertThat(d.get("uid").getAsString()).isEqualTo("cutpoint-coordinator");
    com.google.gson.JsonArray panels = d.getAsJsonArray("panels");
    assertThat(panels).hasSizeGreaterThanOrEqualTo(10);
    for (com.google.gson.JsonElement p : panels) {
      com.google.gson.JsonObject panel = p.getAsJsonObject();
      assertThat(panel.getAsJsonObject("datasource").get("uid").getAsString())
          .isEqualTo("${datasource}");
      assertThat(panel.getAsJsonArray("targets"))
          .isNotEmpty()
          .allSatisfy(t -> assertThat(t.getAsJsonObject().get("expr").getAsString()).isNotBlank());
    }
  }

  @Test
  void everyRuleHasAnAlertNameAnExpressionAndASeverity() throws Exception {
    String rules = Files.readString(opsDir().resolve("alerts/cutpoint-rules.yml"));
    long alerts = rules.lines().filter(l -> l.strip().startsWith("- alert: Cutpoint")).count();
    assertThat(alerts).isGreaterThanOrEqualTo(6);
    assertThat(rules.lines().filter(l -> l.strip().startsWith("expr:")).count()).isEqualTo(alerts);
    assertThat(rules.lines().filter(l -> l.strip().startsWith("severity:")).count())
        .isEqualTo(alerts);
    assertThat(rules).doesNotContain("\t");
  }

  @Test
  void rulesAndDashboardUseOnlyMetricsARealCoordinatorExposes(@TempDir Path dir) throws Exception {
    String rules = Files.readString(opsDir().resolve("alerts/cutpoint-rules.yml"));
    String dashboard = Files.readString(opsDir().resolve("dashboards/cutpoint.json"));
    Set<String> used = new TreeSet<>(namesUsedIn(rules));
    used.addAll(namesUsedIn(dashboard));
    assertThat(namesUsedIn(rules))
        .contains(
            "cutpoint_snapshot_latest_age_seconds",
            "cutpoint_snapshots_total",
            "cutpoint_rollbacks_total");
    assertThat(namesUsedIn(dashboard))
        .contains(
            "cutpoint_snapshot_duration_seconds_bucket",
            "cutpoint_snapshots_total",
            "cutpoint_snapshot_latest_age_seconds",
            "cutpoint_workers",
            "cutpoint_snapshot_state_size_bytes_sum",
            "cutpoint_rollbacks_total");

    String scrape = scrapeAfterSnapshotAndRollback(dir);

    assertThat(missing(used, namesExposedIn(scrape)))
        .as("metric names not exposed by a coordinator")
        .isEmpty();
    assertThat(scrape).containsPattern("cutpoint_snapshots_total\\{outcome=\"complete\"} [1-9]");
    assertThat(scrape).containsPattern("cutpoint_rollbacks_total\\{outcome=\"completed\"} [1-9]");
  }

  private static String scrapeAfterSnapshotAndRollback(Path dir) throws Exception {
    Metrics metrics = new Metrics();
    PrometheusMeterRegistry registry = metrics.registry();
    CoordinatorConfig config =
        CoordinatorConfig.builder()
            .port(0)
            .dataDir(dir.resolve("data"))
            .snapshotInterval(Duration.ZERO)
            .snapshotTimeout(Duration.ofSeconds(20))
            .build();
    CaptureLog captures = new CaptureLog();
    try (CoordinatorServer server = CoordinatorServer.start(config, registry)) {
      String target = "127.0.0.1:" + server.port();
      ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
      try (BankNode a =
              BankNode.start(
                  "a",
                  new TreeSet<>(Set.of("b")),
                  new TreeSet<>(Set.of("b")),
                  100,
                  5,
                  1,
                  target,
                  captures);
          BankNode b =
              BankNode.start(
                  "b",
                  new TreeSet<>(Set.of("a")),
                  new TreeSet<>(Set.of("a")),
                  100,
                  5,
                  2,
                  target,
                  captures)) {
        a.joined().get(20, TimeUnit.SECONDS);
        b.joined().get(20, TimeUnit.SECONDS);
        a.transferSoon();
        b.transferSoon();
        AdminGrpc.AdminBlockingStub admin = AdminGrpc.newBlockingStub(channel);
        TriggerSnapshotResponse snap =
            await()
                .atMost(Duration.ofSeconds(30))
                .until(
                    () ->
                        admin
                            .withDeadlineAfter(20, TimeUnit.SECONDS)
                            .triggerSnapshot(
                                TriggerSnapshotRequest.newBuilder().setWait(true).build()),
                    r -> r.getManifest().getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
        RollbackResponse rollback =
            admin
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .rollback(
                    RollbackRequest.newBuilder()
                        .setSnapshotId(snap.getSnapshotId())
                        .setWait(true)
                        .build());
        assertThat(rollback.getCompleted()).isTrue();
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      return registry.scrape();
    } finally {
      metrics.close();
    }
  }
}
