package io.cutpoint.ops.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.ops.config.Setting;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * What can be checked of {@code ops/deploy} without a service manager or a container engine: the
 * systemd unit with {@code systemd-analyze verify}, the compose file and Grafana provisioning as
 * YAML whose paths exist, the Prometheus configuration with {@code promtool check config}, and that
 * every {@code CUTPOINT_*} variable they set is a setting of {@code cutpoint server}.
 */
class DeploymentFilesTest {

  private static final Pattern ENV_VAR = Pattern.compile("\\b(CUTPOINT_[A-Z_]+)=");
  private final Path root = ExternalTool.repositoryRoot();
  private final Path deploy = root.resolve("ops/deploy");

  @Test
  void theSystemdUnitVerifiesCleanly() throws Exception {
    ExternalTool.Result r =
        ExternalTool.require("systemd-analyze", "apt-get install systemd")
            .run(deploy, "verify", "./cutpoint.service")
            .succeeded();
    assertThat(r.output()).as("warnings of systemd-analyze verify").isBlank();
  }

  /** The check can fail: a misspelt key is only a warning for systemd, and the test refuses it. */
  @Test
  void theUnitCheckCatchesAMisspeltKey(@TempDir Path dir) throws Exception {
    ExternalTool tool = ExternalTool.require("systemd-analyze", "apt-get install systemd");
    String unit =
        Files.readString(deploy.resolve("cutpoint.service"))
            .replace("Restart=on-failure", "Restrat=on-failure");
    Files.writeString(dir.resolve("cutpoint.service"), unit);

    ExternalTool.Result r = tool.run(dir, "verify", "./cutpoint.service");

    assertThat(r.output()).contains("Unknown key 'Restrat'");
  }

  @Test
  void theUnitStopsGracefullyRestartsOnFailureAndKeepsItsDataAndToken() throws IOException {
    String unit = Files.readString(deploy.resolve("cutpoint.service"));
    assertThat(unit)
        .contains(
            "KillSignal=SIGTERM",
            "TimeoutStopSec=",
            "SuccessExitStatus=143",
            "Restart=on-failure",
            "StateDirectory=cutpoint",
            "ExecStart=/usr/bin/java ",
            "-jar /opt/cutpoint/cutpoint.jar server",
            Setting.DATA_DIR.envVar() + "=/var/lib/cutpoint/",
            Setting.ADMIN_TOKEN_FILE.envVar() + "=/etc/cutpoint/");
    assertThat(unknownSettings(unit)).isEmpty();
  }

  @Test
  void theDockerfileRunsTheJarAsAServer() throws IOException {
    String dockerfile = Files.readString(deploy.resolve("Dockerfile"));
    assertThat(dockerfile)
        .contains(
            "COPY ops/target/cutpoint.jar ",
            "EXPOSE 7070 9464",
            "STOPSIGNAL SIGTERM",
            "CMD [\"server\"]",
            Setting.HOST.envVar() + "=0.0.0.0");
    assertThat(unknownSettings(dockerfile)).isEmpty();
  }

  @Test
  void theComposeFileBuildsTheImageAndMountsFilesThatExist() throws IOException {
    Map<String, Object> compose = yaml(deploy.resolve("docker-compose.yml"));
    Map<String, Object> services = map(compose.get("services"));
    assertThat(services).containsOnlyKeys("cutpoint", "prometheus", "grafana");

    Map<String, Object> build = map(map(services.get("cutpoint")).get("build"));
    Path context = deploy.resolve((String) build.get("context")).normalize();
    assertThat(context).isEqualTo(root);
    assertThat(context.resolve((String) build.get("dockerfile"))).isRegularFile();
    assertThat(
            unknownSettings(
                String.join(
                    "\n",
                    map(map(services.get("cutpoint")).get("environment")).keySet().stream()
                        .map(k -> k + "=")
                        .toList())))
        .isEmpty();

    List<String> mounts = new ArrayList<>();
    for (Object service : services.values()) {
      Object volumes = map(service).get("volumes");
      if (volumes != null) {
        for (Object v : (List<?>) volumes) {
          String spec = (String) v;
          if (spec.startsWith(".")) {
            mounts.add(spec);
            assertThat(deploy.resolve(spec.substring(0, spec.indexOf(':'))).normalize())
                .as(spec)
                .exists();
          }
        }
      }
    }
    assertThat(mounts)
        .contains(
            "../alerts:/etc/prometheus/alerts:ro",
            "../dashboards:/var/lib/grafana/dashboards:ro",
            "./prometheus.yml:/etc/prometheus/deploy/prometheus.yml:ro");
    assertThat(map(services.get("prometheus")).get("command").toString())
        .contains("--config.file=/etc/prometheus/deploy/prometheus.yml");
  }

  @Test
  void grafanaIsProvisionedWithPrometheusAndTheShippedDashboard() throws IOException {
    Path provisioning = deploy.resolve("grafana/provisioning");
    Map<String, Object> source =
        map(
            ((List<?>) yaml(provisioning.resolve("datasources/prometheus.yml")).get("datasources"))
                .get(0));
    assertThat(source)
        .containsEntry("type", "prometheus")
        .containsEntry("url", "http://prometheus:9090");
    Map<String, Object> provider =
        map(
            ((List<?>) yaml(provisioning.resolve("dashboards/cutpoint.yml")).get("providers"))
                .get(0));
    assertThat(map(provider.get("options"))).containsEntry("path", "/var/lib/grafana/dashboards");
    assertThat(root.resolve("ops/dashboards/cutpoint.json")).isRegularFile();
  }

  @Test
  void theComposePrometheusConfigurationScrapesTheCoordinatorAndLoadsTheRules() throws Exception {
    ExternalTool.Result r =
        ExternalTool.require("promtool", "apt-get install prometheus")
            .run(root, "check", "config", "ops/deploy/prometheus.yml")
            .succeeded();
    assertThat(r.output())
        .contains(
            "SUCCESS: 1 rule files found",
            "SUCCESS: " + PromtoolTest.alertRules(root) + " rules found");
    assertThat(Files.readString(deploy.resolve("prometheus.yml"))).contains("\"cutpoint:9464\"");
  }

  private static List<String> unknownSettings(String text) {
    List<String> known = java.util.Arrays.stream(Setting.values()).map(Setting::envVar).toList();
    List<String> unknown = new ArrayList<>();
    Matcher m = ENV_VAR.matcher(text);
    while (m.find()) {
      if (!known.contains(m.group(1))) {
        unknown.add(m.group(1));
      }
    }
    return unknown;
  }

  private static Map<String, Object> yaml(Path file) throws IOException {
    try (Reader r = Files.newBufferedReader(file)) {
      return new Yaml().load(r);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    assertThat(o).isInstanceOf(Map.class);
    return (Map<String, Object>) o;
  }
}
