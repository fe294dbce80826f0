package io.cutpoint.ops.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.cutpoint.client.testing.TestPki;
import io.cutpoint.ops.Cli;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.security.AdminToken;
import io.cutpoint.server.security.TlsFiles;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code demo --connect} against a coordinator that wants tokens and mutual TLS with worker
 * certificates.
 */
class DemoConnectTest {

  private static final String ADMIN = "4dm1n-t0ken";
  private static final String WORKERS = "w0rker-t0ken";

  @TempDir Path dir;

  private static List<String> demo(String target, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "demo",
                "--connect",
                target,
                "--duration",
                "3s",
                "--interval",
                "500ms",
                "--crash-every",
                "0",
                "--json"));
    args.addAll(List.of(more));
    if (!args.contains("--workers")) {
      args.addAll(List.of("--workers", "2"));
    }
    return args;
  }

  private static JsonObject summary(Cli.Result r) {
    List<String> lines = r.out().lines().toList();
    return JsonParser.parseString(lines.get(lines.size() - 1)).getAsJsonObject();
  }

  @Test
  void theDemoJoinsWithTheWorkerTokenAndCallsAdminWithTheAdminTokenOverMutualTls()
      throws Exception {
    TestPki pki = TestPki.create(Files.createDirectories(dir.resolve("pki")));
    // one certificate naming both bank workers (for their sessions) serves the Admin calls too
    TestPki.Issued banks = pki.workers("banks", Topologies.ids(2));
    Path adminToken = Files.writeString(dir.resolve("admin-token"), ADMIN + "\n");
    Path workerToken = Files.writeString(dir.resolve("worker-token"), WORKERS + "\n");
    try (CoordinatorServer server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir.resolve("data"))
                .snapshotInterval(Duration.ZERO)
                .adminToken(AdminToken.of(ADMIN))
                .workerToken(AdminToken.of(WORKERS))
                .tls(new TlsFiles(pki.serverCert(), pki.serverKey(), pki.caCert()))
                .build(),
            new SimpleMeterRegistry())) {
      String target = "localhost:" + server.port();
      Cli.Result r =
          Cli.run(
              demo(
                      target,
                      "--token-file",
                      adminToken.toString(),
                      "--worker-token-file",
                      workerToken.toString(),
                      "--tls-ca",
                      pki.caCert().toString(),
                      "--tls-cert",
                      banks.cert().toString(),
                      "--tls-key",
                      banks.key().toString())
                  .toArray(String[]::new));
      assertThat(r.code()).as(r.err()).isEqualTo(ExitCodes.OK);
      assertThat(summary(r).get("snapshots_completed").getAsLong()).isPositive();

      // the same run without the admin token: the first Admin call is refused, in one line
      Cli.Result noToken =
          Cli.run(
              demo(
                      target,
                      "--worker-token-file",
                      workerToken.toString(),
                      "--tls-ca",
                      pki.caCert().toString(),
                      "--tls-cert",
                      banks.cert().toString(),
                      "--tls-key",
                      banks.key().toString())
                  .toArray(String[]::new));
      assertThat(noToken.code()).isEqualTo(ExitCodes.FAILED);
      assertThat(noToken.err().lines())
          .singleElement()
          .asString()
          .startsWith("cutpoint: not allowed: admin token required");
    }
  }

  @Test
  void theConnectionFlagsAreUsageErrorsWithoutConnectOrWhenTheirFilesAreBad() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), ADMIN);
    Cli.Result embedded = Cli.run("demo", "--duration", "1s", "--token-file", token.toString());
    assertThat(embedded.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(embedded.err())
        .contains(
            "--token-file, --worker-token-file and the --tls flags are for "
                + "the coordinator of --connect");

    Cli.Result certWithoutCa =
        Cli.run(
            demo("127.0.0.1:1", "--tls-cert", token.toString(), "--tls-key", token.toString())
                .toArray(String[]::new));
    assertThat(certWithoutCa.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(certWithoutCa.err()).contains("--tls-cert and --tls-key need --tls-ca");

    Cli.Result badCa =
        Cli.run(demo("127.0.0.1:1", "--tls-ca", token.toString()).toArray(String[]::new));
    assertThat(badCa.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badCa.err()).contains("cannot use the TLS files (--tls-ca " + token);

    Cli.Result noWorkerToken =
        Cli.run(
            demo("127.0.0.1:1", "--worker-token-file", dir.resolve("nope").toString())
                .toArray(String[]::new));
    assertThat(noWorkerToken.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(noWorkerToken.err())
        .contains("cannot read --worker-token-file " + dir.resolve("nope"));
  }

  @Test
  void aWorkerLeftLostByAnEarlierRunIsNamedOnceAsWhatBlocksTheSnapshotsUntilItIsRemoved()
      throws Exception {
    try (CoordinatorServer server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir.resolve("data"))
                .snapshotInterval(Duration.ZERO)
                .build(),
            new SimpleMeterRegistry())) {
      String target = "127.0.0.1:" + server.port();
      // three workers that end with the run: bank-1..3 stay behind as lost
      Cli.Result first = Cli.run(demo(target, "--workers", "3").toArray(String[]::new));
      assertThat(first.code()).as(first.err()).isEqualTo(ExitCodes.OK);

      // two workers: bank-3 never returns, so no snapshot can start
      Cli.Result second = Cli.run(demo(target).toArray(String[]::new));
      List<JsonObject> blocked =
          second
              .out()
              .lines()
              .map(l -> JsonParser.parseString(l).getAsJsonObject())
              .filter(e -> e.get("event").getAsString().equals("blocked"))
              .toList();
      assertThat(blocked)
          .as(second.out())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.get("reason").getAsString()).isEqualTo("workers_lost");
                assertThat(e.get("workers").getAsString()).isEqualTo("bank-3");
                assertThat(e.get("message").getAsString())
                    .contains("blocked by bank-3", "worker remove");
              });
      assertThat(summary(second).get("snapshots_completed").getAsLong()).isZero();
      assertThat(second.code()).isEqualTo(ExitCodes.FAILED);

      Cli.Result removed = Cli.run("worker", "remove", "bank-3", "--server", target);
      assertThat(removed.code()).as(removed.err()).isEqualTo(ExitCodes.OK);
      Cli.Result third = Cli.run(demo(target).toArray(String[]::new));
      assertThat(third.code()).as(third.out()).isEqualTo(ExitCodes.OK);
      assertThat(third.out()).doesNotContain("\"event\":\"blocked\"");
    }
  }
}
