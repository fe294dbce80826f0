package io.cutpoint.ops.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.ops.Cli;
import io.cutpoint.ops.ExitCodes;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.security.TlsFiles;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin commands against a coordinator that serves TLS (the test certificate in tls/). */
class TlsHintCliTest {

  @TempDir Path dir;
  private CoordinatorServer server;
  private Path cert;

  private static Path resource(String name) throws URISyntaxException {
    return Path.of(TlsHintCliTest.class.getResource("/tls/" + name).toURI());
  }

  @BeforeEach
  void start() throws Exception {
    cert = resource("localhost.pem");
    server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir.resolve("data"))
                .snapshotInterval(Duration.ZERO)
                .tls(new TlsFiles(cert, resource("localhost.key"), null))
                .build(),
            new SimpleMeterRegistry());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aPlaintextCallToATlsCoordinatorHintsAtTlsCa() {
    Cli.Result r =
        Cli.run("cluster", "--server", "localhost:" + server.port(), "--deadline", "10s");
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err().lines())
        .singleElement()
        .asString()
        .startsWith("cutpoint: cannot reach coordinator at localhost:" + server.port())
        .endsWith("(if the coordinator serves TLS, give its CA with --tls-ca FILE)");
  }

  @Test
  void withItsCaTheSameCallWorks() {
    Cli.Result r =
        Cli.run("cluster", "--server", "localhost:" + server.port(), "--tls-ca", cert.toString());
    assertThat(r.err()).isEmpty();
    assertThat(r.code()).isEqualTo(ExitCodes.OK);
  }

  @Test
  void noHintWhenNothingListens() {
    assertThat(
            GrpcErrors.plaintextHint(
                io.grpc.Status.UNAVAILABLE
                    .withDescription("io exception")
                    .withCause(new java.net.ConnectException("Connection refused"))
                    .asRuntimeException()))
        .isEmpty();
    assertThat(GrpcErrors.plaintextHint(io.grpc.Status.NOT_FOUND.asRuntimeException())).isEmpty();
  }
}
