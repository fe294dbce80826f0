package io.cutpoint.ops.http;

import io.cutpoint.ops.demo.BankNode;
import io.cutpoint.ops.demo.CaptureLog;
import io.cutpoint.ops.demo.Topologies;
import io.cutpoint.ops.server.Metrics;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.security.AdminToken;
import io.cutpoint.server.security.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;

/**
 * A real coordinator on loopback with its HTTP port, and real bank workers in a ring moving money
 * around, for the HTTP API and browser tests. {@link #close()} stops all of it.
 */
final class LiveCluster implements AutoCloseable {

  final CoordinatorServer server;
  final HttpEndpoint http;
  final Metrics metrics;
  final List<BankNode> nodes = new ArrayList<>();
  private final boolean https;
  private final java.util.concurrent.ScheduledExecutorService traffic =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor();

  private LiveCluster(CoordinatorServer server, HttpEndpoint http, Metrics metrics, boolean https) {
    this.server = server;
    this.http = http;
    this.metrics = metrics;
    this.https = https;
  }

  /**
   * @param token the admin token, or null for none
   * @param workers bank workers to start in a ring (0 = none)
   * @param interval periodic snapshots (zero = none)
   */
  static LiveCluster start(Path dir, String token, TlsFiles tls, int workers, Duration interval)
      throws Exception {
    Metrics metrics = new Metrics();
    CoordinatorServer server =
        CoordinatorServer.start(
            CoordinatorConfig.builder()
                .port(0)
                .dataDir(dir.resolve("data"))
                .snapshotInterval(interval)
                .retainCompleteSnapshots(100_000)
                .adminToken(token == null ? null : AdminToken.of(token))
                .tls(tls)
                .build(),
            metrics.registry());
    HttpEndpoint http;
    try {
      http =
          HttpEndpoint.start(
              "127.0.0.1",
              0,
              metrics.registry(),
              server.adminChannel(),
              tls,
              server.context().config().adminAuthenticated());
    } catch (Exception e) {
      server.close();
      metrics.close();
      throw e;
    }
    LiveCluster c = new LiveCluster(server, http, metrics, tls != null);
    try {
      List<String> ids = workers == 0 ? List.of() : Topologies.ids(workers);
      Map<String, SortedSet<String>> out =
          workers == 0 ? Map.of() : Topologies.outgoing(Topologies.Kind.RING, ids, 7);
      CaptureLog captures = new CaptureLog();
      for (int i = 0; i < workers; i++) {
        String id = ids.get(i);
        c.nodes.add(
            BankNode.start(
                id,
                out.get(id),
                Topologies.incoming(out, id),
                1_000,
                20,
                i,
                server.target(),
                captures));
      }
      for (BankNode n : c.nodes) {
        n.joined().get(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** From now on until {@link #close()}, each worker sends {@code perTick} transfers every 2 ms. */
  LiveCluster withTraffic(int perTick) {
    traffic.scheduleAtFixedRate(
        () -> {
          for (int i = 0; i < perTick; i++) {
            nodes.forEach(BankNode::transferSoon);
          }
        },
        0,
        2,
        TimeUnit.MILLISECONDS);
    return this;
  }

  /** {@code http://127.0.0.1:PORT} (https with TLS). */
  String base() {
    return (https ? "https" : "http") + "://127.0.0.1:" + http.port();
  }

  @Override
  public void close() {
    traffic.shutdownNow();
    http.close();
    for (BankNode n : nodes) {
      n.close();
    }
    server.close();
    metrics.close();
  }
}
