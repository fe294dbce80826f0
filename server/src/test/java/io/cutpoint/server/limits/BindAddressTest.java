package io.cutpoint.server.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.security.AdminToken;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the gRPC port binds: loopback unless workers authenticate or a host is given. */
class BindAddressTest {

  @TempDir Path dir;

  private static CoordinatorConfig.Builder config(Path dir) {
    return CoordinatorConfig.builder().port(0).dataDir(dir).snapshotInterval(Duration.ZERO);
  }

  private static InetSocketAddress bound(CoordinatorConfig config) throws Exception {
    try (CoordinatorServer server = CoordinatorServer.start(config, new SimpleMeterRegistry())) {
      assertThat(server.listenAddresses()).hasSize(1);
      return (InetSocketAddress) server.listenAddresses().get(0);
    }
  }

  @Test
  void withoutAWorkerTokenOrTlsItBindsLoopbackOnlyAndSaysSo() throws Exception {
    try (CoordinatorServer server =
        CoordinatorServer.start(config(dir).build(), new SimpleMeterRegistry())) {
      InetSocketAddress a = (InetSocketAddress) server.listenAddresses().get(0);
      assertThat(a.getAddress().isLoopbackAddress()).as("%s", a).isTrue();
      assertThat(server.bindDescription())
          .isEqualTo("127.0.0.1:" + server.port() + " (loopback only)");
      assertThat(server.target()).isEqualTo("127.0.0.1:" + server.port());
    }
  }

  @Test
  void withAWorkerTokenItBindsEveryInterface() throws Exception {
    InetSocketAddress a = bound(config(dir).workerToken(AdminToken.of("w-secret")).build());
    assertThat(a.getAddress().isAnyLocalAddress()).as("%s", a).isTrue();
  }

  @Test
  void anExplicitHostWins() throws Exception {
    InetSocketAddress a =
        bound(config(dir).workerToken(AdminToken.of("w-secret")).host("127.0.0.1").build());
    assertThat(a.getAddress().isLoopbackAddress()).as("%s", a).isTrue();
    InetSocketAddress any = bound(config(dir).host("0.0.0.0").build());
    assertThat(any.getAddress().isAnyLocalAddress()).as("%s", any).isTrue();
  }
}
