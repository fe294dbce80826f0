package io.cutpoint.ops.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar run as a user runs it: a server, the admin commands, /metrics, the demo, errors.
 */
class CutpointJarIT {

  private static final Duration RUN = Duration.ofSeconds(120);
  private static final Pattern LISTENING =
      Pattern.compile(
          "cutpoint server listening on 127\\.0\\.0\\.1:(\\d+) \\(loopback only\\), metrics on http://localhost:(\\d+)/metrics");

  private static JsonObject json(String line) {
    return JsonParser.parseString(line).getAsJsonObject();
  }

  private static JsonObject lastJson(JarProcess.Result r) {
    List<String> lines = r.outLines();
    return json(lines.get(lines.size() - 1));
  }

  private static String scrape(HttpClient http, int port) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
    return r.body();
  }

  private static double sample(String scrape, String series) {
    Matcher m =
        Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE)
            .matcher(scrape);
    return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
  }

  @Test
  void versionAndHelp() throws Exception {
    JarProcess.Result v = JarProcess.run(RUN, "--version");
    assertThat(v.code()).isZero();
    assertThat(v.out()).matches("(?s)cutpoint \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\nJava .*");
    JarProcess.Result h = JarProcess.run(RUN, "--help");
    assertThat(h.code()).isZero();
    assertThat(h.out()).contains("server", "snapshot", "rollback", "demo", "Exit codes");
  }

  @Test
  void serverAdminCommandsAndMetricsWorkTogether(@TempDir Path dir) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    try (JarProcess server =
        JarProcess.start(
            "server",
            "--port",
            "0",
            "--metrics-port",
            "0",
            "--data-dir",
            dir.resolve("data").toString(),
            "--interval",
            "0")) {
      Matcher m = server.awaitOut(LISTENING, RUN);
      String target = "localhost:" + m.group(1);
      int metricsPort = Integer.parseInt(m.group(2));
      try (JarProcess watching = JarProcess.start("watch", "--server", target)) {
        String before = scrape(http, metricsPort);
        assertThat(sample(before, "cutpoint_snapshots_total{outcome=\"complete\"}")).isZero();
        assertThat(before).contains("jvm_memory_used_bytes", "process_uptime_seconds");

        try (JarProcess watch =
            JarProcess.start("watch", "--json", "--count", "3", "--server", target)) {
          JarProcess.Result demo =
              JarProcess.run(
                  RUN,
                  "demo",
                  "--connect",
                  target,
                  "--duration",
                  "5s",
                  "--interval",
                  "500ms",
                  "--crash-every",
                  "0",
                  "--workers",
                  "3",
                  "--topology",
                  "mesh",
                  "--json");
          assertThat(demo.code()).as(demo.err()).isZero();
          assertThat(lastJson(demo).get("snapshots_completed").getAsLong()).isPositive();
          JarProcess.Result events = watch.waitForExit(RUN);
          assertThat(events.code()).isZero();
          assertThat(events.outLines())
              .hasSize(3)
              .allSatisfy(l -> assertThat(json(l).has("type")).isTrue());
        }

        String after = scrape(http, metricsPort);
        assertThat(sample(after, "cutpoint_snapshots_total{outcome=\"complete\"}"))
            .isGreaterThanOrEqualTo(1);
        assertThat(sample(after, "cutpoint_snapshot_duration_seconds_count{outcome=\"complete\"}"))
            .isGreaterThanOrEqualTo(1);
        assertThat(sample(after, "cutpoint_snapshot_markers_total")).isPositive();
        assertThat(sample(after, "cutpoint_store_size_bytes")).isPositive();

        JarProcess.Result list =
            JarProcess.run(RUN, "list", "--status", "complete", "--server", target);
        assertThat(list.code()).as(list.err()).isZero();
        assertThat(list.outLines().get(0)).startsWith("ID").contains("STATUS", "IN-FLIGHT");
        Matcher newest = Pattern.compile("^\\s*(\\d+)\\s+complete").matcher(list.outLines().get(1));
        assertThat(newest.find()).as(list.out()).isTrue();
        String id = newest.group(1);

        JarProcess.Result listJson =
            JarProcess.run(RUN, "list", "--json", "--limit", "1", "--server", target);
        assertThat(json(listJson.out()).getAsJsonArray("snapshots")).hasSize(1);

        JarProcess.Result show = JarProcess.run(RUN, "show", id, "--server", target);
        assertThat(show.code()).as(show.err()).isZero();
        assertThat(show.out()).contains("status:     complete", "Workers:", "bank-1", "Channels");
        JarProcess.Result channel =
            JarProcess.run(RUN, "show", id, "--channel", "bank-1->bank-2", "--server", target);
        assertThat(channel.code()).as(channel.err()).isZero();
        assertThat(channel.out()).contains("channel bank-1->bank-2:");

        JarProcess.Result cluster = JarProcess.run(RUN, "cluster", "--server", target);
        assertThat(cluster.code()).isZero();
        assertThat(cluster.out()).contains("latest complete:", "bank-1", "bank-3");
        JarProcess.Result analyze =
            JarProcess.run(RUN, "analyze", id, "--json", "--server", target);
        assertThat(analyze.code()).as(analyze.err()).isZero();
        assertThat(json(analyze.out()).get("snapshot_id").getAsString()).isEqualTo(id);

        assertThat(JarProcess.run(RUN, "pin", id, "--server", target).out())
            .isEqualTo("snapshot " + id + " pinned");
        JarProcess.Result pinnedDelete = JarProcess.run(RUN, "delete", id, "--server", target);
        assertThat(pinnedDelete.code()).isEqualTo(1);
        assertThat(pinnedDelete.err())
            .startsWith("cutpoint: ")
            .doesNotContain("\n")
            .contains("pinned");
        assertThat(JarProcess.run(RUN, "unpin", id, "--server", target).code()).isZero();
        assertThat(JarProcess.run(RUN, "delete", id, "--server", target).out())
            .isEqualTo("snapshot " + id + " deleted");
        JarProcess.Result gone = JarProcess.run(RUN, "show", id, "--server", target);
        assertThat(gone.code()).isEqualTo(1);
        assertThat(gone.err()).isEqualTo("cutpoint: snapshot " + id + " not found");

        watching.awaitOut(
            Pattern.compile("snapshot_completed"), RUN); // it saw the demo's snapshots
        int code = server.terminate(Duration.ofSeconds(30));
        assertThat(code).as("exit code after SIGTERM: a graceful stop").isZero();
        assertThat(server.err()).anySatisfy(l -> assertThat(l).contains("shutting down"));
        JarProcess.Result orphan = watching.waitForExit(RUN);
        assertThat(orphan.code()).as("watch, once its coordinator stopped").isEqualTo(1);
        assertThat(orphan.err())
            .startsWith("cutpoint: the coordinator at " + target + " went away")
            .doesNotContain("\n");
      }
    }
  }

  @Test
  void demoJsonShortRunWithCrashesEndsWithACleanSummary() throws Exception {
    JarProcess.Result r =
        JarProcess.run(
            Duration.ofSeconds(180),
            "demo",
            "--json",
            "--duration",
            "8s",
            "--crash-every",
            "2s",
            "--interval",
            "500ms",
            "--seed",
            "3");
    assertThat(r.code()).as(r.err()).isZero();
    for (String line : r.outLines()) {
      assertThat(json(line).has("event")).as(line).isTrue();
    }
    JsonObject summary = lastJson(r);
    assertThat(summary.get("event").getAsString()).isEqualTo("summary");
    assertThat(summary.get("ok").getAsBoolean()).isTrue();
    assertThat(summary.get("conservation_violations").getAsLong()).isZero();
    assertThat(summary.get("snapshots_completed").getAsLong()).isPositive();
    assertThat(summary.get("rollbacks").getAsLong()).isPositive();
    assertThat(summary.get("recoveries_ok").getAsLong())
        .isEqualTo(summary.get("rollbacks").getAsLong());
    assertThat(summary.get("p99_snapshot_ms").getAsDouble())
        .isGreaterThanOrEqualTo(summary.get("p50_snapshot_ms").getAsDouble())
        .isPositive();
    assertThat(summary.get("expected_total").getAsLong())
        .isEqualTo(summary.get("final_total").getAsLong());
  }

  @Test
  void badFlagsAndAnUnreachableServerGiveOneClearLine() throws Exception {
    JarProcess.Result bad = JarProcess.run(RUN, "list", "--bogus");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err())
        .isEqualTo("cutpoint: Unknown option: '--bogus' (see 'cutpoint list --help')");
    assertThat(bad.out()).isEmpty();

    JarProcess.Result badDemo = JarProcess.run(RUN, "demo", "--topology", "star");
    assertThat(badDemo.code()).isEqualTo(2);
    assertThat(badDemo.err()).startsWith("cutpoint: ").doesNotContain("\n").contains("star");

    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    JarProcess.Result down = JarProcess.run(RUN, "cluster", "--server", "127.0.0.1:" + port);
    assertThat(down.code()).isEqualTo(1);
    assertThat(down.err())
        .isEqualTo(
            "cutpoint: cannot reach coordinator at 127.0.0.1:" + port + ": connection refused");

    JarProcess.Result unknownHost = JarProcess.run(RUN, "list", "--server", "nohost.invalid:7070");
    assertThat(unknownHost.code()).isEqualTo(1);
    assertThat(unknownHost.err())
        .as("no log of gRPC's, no stack trace")
        .isEqualTo("cutpoint: cannot reach coordinator at nohost.invalid:7070: unknown host");

    JarProcess.Result alone = JarProcess.run(RUN);
    assertThat(alone.code()).isEqualTo(2);
    assertThat(alone.err()).startsWith("Usage: cutpoint").contains("server", "snapshot");

    JarProcess.Result typo = JarProcess.run(RUN, "snapshott");
    assertThat(typo.code()).isEqualTo(2);
    assertThat(typo.err())
        .startsWith("cutpoint: Unmatched argument")
        .contains("; did you mean: snapshot")
        .doesNotContain("\n");

    JarProcess.Result huge =
        JarProcess.run(RUN, "server", "--interval", "9999999999999999s", "--print-config");
    assertThat(huge.code()).isEqualTo(2);
    assertThat(huge.err())
        .isEqualTo(
            "cutpoint: bad value for interval (flag --interval): "
                + "'9999999999999999s' is too long (at most about 292 years)");

    JarProcess.Result demoDown =
        JarProcess.run(RUN, "demo", "--connect", "127.0.0.1:" + port, "--duration", "1s");
    assertThat(demoDown.code()).isEqualTo(1);
    assertThat(demoDown.err())
        .isEqualTo(
            "cutpoint: cannot reach coordinator at 127.0.0.1:" + port + ": connection refused");
  }
}
