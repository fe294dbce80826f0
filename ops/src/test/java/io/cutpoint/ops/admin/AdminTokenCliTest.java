package io.cutpoint.ops.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.ops.Cli;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.security.AdminToken;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin commands against a coordinator on loopback that wants an admin token. */
class AdminTokenCliTest {

  private static final String TOKEN = "4dm1n-t0ken";

  @TempDir Path dir;
  private CoordinatorServer server;

  @BeforeEach
  void start() throws Exception {
    server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir.resolve("data"))
                .snapshotInterval(Duration.ZERO)
                .adminToken(AdminToken.of(TOKEN))
                .build(),
            new SimpleMeterRegistry());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private Cli.Result cluster(String... more) {
    String[] args = new String[more.length + 3];
    args[0] = "cluster";
    args[1] = "--server";
    args[2] = server.target();
    System.arraycopy(more, 0, args, 3, more.length);
    return Cli.run(args);
  }

  @Test
  void theTokenFromATokenFileGetsThrough() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), TOKEN + "\n");
    Cli.Result r = cluster("--token-file", file.toString());
    assertThat(r.err()).isEmpty();
    assertThat(r.code()).isEqualTo(ExitCodes.OK);
  }

  @Test
  void withoutATokenTheCommandSaysSoInOneLineAndExits1() {
    Cli.Result r = cluster();
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err().lines())
        .containsExactly(
            "cutpoint: not allowed: admin token required "
                + "(give the admin token with --token-file FILE or env CUTPOINT_ADMIN_TOKEN)");
    assertThat(r.out()).isEmpty();
  }

  /** It said the coordinator "went away", as if the stream had broken. */
  @Test
  void watchWithoutATokenSaysSoAsEveryCommandDoes() {
    Cli.Result r = Cli.run("watch", "--count", "1", "--server", server.target());
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err().lines())
        .containsExactly(
            "cutpoint: not allowed: admin token required "
                + "(give the admin token with --token-file FILE or env CUTPOINT_ADMIN_TOKEN)");
  }

  @Test
  void aWrongTokenIsRefusedWithoutEchoingIt() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "not-" + TOKEN);
    Cli.Result r = cluster("--token-file", file.toString());
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err().lines())
        .singleElement()
        .asString()
        .startsWith("cutpoint: not allowed: bad admin token")
        .doesNotContain(TOKEN);
  }

  @Test
  void anUnreadableOrEmptyTokenFileIsAUsageError() throws Exception {
    Cli.Result missing = cluster("--token-file", dir.resolve("nope").toString());
    assertThat(missing.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err()).contains("cannot read --token-file " + dir.resolve("nope"));
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    Cli.Result blank = cluster("--token-file", empty.toString());
    assertThat(blank.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(blank.err()).contains("--token-file " + empty + " is empty");
  }

  @Test
  void aFailedTlsHandshakeIsNamedWithItsReason() {
    io.grpc.StatusRuntimeException e =
        io.grpc.Status.UNAVAILABLE
            .withDescription("ssl exception")
            .withCause(new javax.net.ssl.SSLHandshakeException("PKIX path building failed"))
            .asRuntimeException();
    assertThat(GrpcErrors.describe(e, "h:1", ""))
        .isEqualTo(
            "cannot reach coordinator at h:1: TLS handshake "
                + "failed (PKIX path building failed; check --tls-ca, and --tls-cert/--tls-key if it wants client certificates)");
  }

  @Test
  void tlsFlagsOutOfPlaceAreUsageErrors() throws Exception {
    Path some = Files.writeString(dir.resolve("some.pem"), "x");
    Cli.Result noCa = cluster("--tls-cert", some.toString(), "--tls-key", some.toString());
    assertThat(noCa.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(noCa.err()).contains("--tls-cert and --tls-key need --tls-ca");
    Cli.Result badCa = cluster("--tls-ca", some.toString());
    assertThat(badCa.code()).as(badCa.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(badCa.err()).contains("cannot use the TLS files (--tls-ca " + some);
  }
}
