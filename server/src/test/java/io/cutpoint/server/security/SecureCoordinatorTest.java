package io.cutpoint.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.GetClusterRequest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.TriggerSnapshotResponse;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import io.cutpoint.client.testing.TestPki;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin token, TLS and mutual TLS on a coordinator over loopback Netty. */
class SecureCoordinatorTest {

  private static final String TOKEN = "c0ffee-admin-token";

  @TempDir Path dir;
  private CoordinatorServer server;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<AutoCloseable> workers = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable w : workers) {
      w.close();
    }
    for (ManagedChannel c : channels) {
      c.shutdownNow();
      c.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private CoordinatorServer start(CoordinatorConfig.Builder b) throws IOException {
    server =
        CoordinatorServer.start(
            b.port(0)
                .dataDir(dir.resolve("data"))
                .snapshotInterval(Duration.ZERO)
                .snapshotTimeout(Duration.ofSeconds(20))
                .heartbeatInterval(Duration.ofMillis(100))
                .heartbeatTimeout(Duration.ofSeconds(5))
                .build(),
            new SimpleMeterRegistry());
    return server;
  }

  private ManagedChannel channel(ChannelCredentials credentials) {
    ManagedChannel c = NettyChannelBuilder.forTarget(server.target(), credentials).build();
    channels.add(c);
    return c;
  }

  private static AdminGrpc.AdminBlockingStub admin(ManagedChannel c, String authorization) {
    AdminGrpc.AdminBlockingStub stub =
        AdminGrpc.newBlockingStub(c).withDeadlineAfter(10, TimeUnit.SECONDS);
    if (authorization == null) {
      return stub;
    }
    Metadata headers = new Metadata();
    headers.put(AdminTokenInterceptor.AUTHORIZATION, authorization);
    return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  private static void assertRefused(Runnable call, Status.Code code, String text) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              if (text != null) {
                assertThat(e.getStatus().getDescription()).isEqualTo(text);
              }
            });
  }

  private static ServingStatus health(ManagedChannel c) {
    return HealthGrpc.newBlockingStub(c)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance())
        .getStatus();
  }

  /**
   * A lone worker over {@code credentials} joins; a snapshot triggered through {@code admin}
   * completes.
   */
  private void aWorkerJoinsAndASnapshotCompletes(
      ChannelCredentials credentials, AdminGrpc.AdminBlockingStub admin) {
    byte[] state = "solo-state".getBytes(StandardCharsets.UTF_8);
    Worker w =
        Worker.builder("solo")
            .stateHandler(
                new StateHandler() {
                  @Override
                  public byte[] capture() {
                    return state;
                  }

                  @Override
                  public void restore(byte[] s) {}
                })
            .messageHandler((from, seq, payload) -> {})
            .build();
    workers.add(w);
    w.start();
    CoordinatorSession session =
        CoordinatorSession.connect(
            server.target(),
            credentials,
            w,
            SessionOptions.defaults().withReconnect(Duration.ofMillis(50), Duration.ofMillis(300)));
    workers.add(0, session);
    session.joined().orTimeout(20, TimeUnit.SECONDS).join();
    TriggerSnapshotResponse r =
        admin
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build());
    assertThat(r.getManifest().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
  }

  @Test
  void theAdminServiceWantsTheTokenWhileWorkersHealthAndReflectionStayOpen() throws Exception {
    start(CoordinatorConfig.builder().adminToken(AdminToken.of(TOKEN)));
    ManagedChannel c = channel(InsecureChannelCredentials.create());
    GetClusterRequest req = GetClusterRequest.getDefaultInstance();

    assertRefused(
        () -> admin(c, null).getCluster(req), Status.Code.UNAUTHENTICATED, "admin token required");
    assertRefused(
        () -> admin(c, "Bearer " + TOKEN + "x").getCluster(req),
        Status.Code.UNAUTHENTICATED,
        "bad admin token");
    assertRefused(
        () -> admin(c, "Bearer " + TOKEN.substring(1)).getCluster(req),
        Status.Code.UNAUTHENTICATED,
        "bad admin token");
    assertRefused(
        () -> admin(c, TOKEN).getCluster(req), Status.Code.UNAUTHENTICATED, "bad admin token");
    assertThat(admin(c, "Bearer " + TOKEN).getCluster(req).getWorkersCount()).isZero();
    assertThat(health(c)).isEqualTo(ServingStatus.SERVING);

    aWorkerJoinsAndASnapshotCompletes(
        InsecureChannelCredentials.create(), admin(c, "Bearer " + TOKEN));
    assertThat(admin(c, "Bearer " + TOKEN).getCluster(req).getWorkersCount()).isEqualTo(1);
  }

  @Test
  void withoutATokenTheAdminServiceIsOpen() throws Exception {
    start(CoordinatorConfig.builder());
    ManagedChannel c = channel(InsecureChannelCredentials.create());
    assertThat(admin(c, null).getCluster(GetClusterRequest.getDefaultInstance()).getWorkersCount())
        .isZero();
  }

  @Test
  void overTlsAPlaintextClientIsRefusedAndAClientTrustingTheCaGetsThrough() throws Exception {
    TestPki pki = TestPki.create(dir);
    start(CoordinatorConfig.builder().tls(TlsFiles.of(pki.serverCert(), pki.serverKey())));

    ManagedChannel plaintext = channel(InsecureChannelCredentials.create());
    assertRefused(() -> health(plaintext), Status.Code.UNAVAILABLE, null);
    ManagedChannel untrusting = channel(TlsChannelCredentials.create());
    assertRefused(() -> health(untrusting), Status.Code.UNAVAILABLE, null);

    ChannelCredentials trusting =
        TlsChannelCredentials.newBuilder().trustManager(pki.caCert().toFile()).build();
    ManagedChannel c = channel(trusting);
    assertThat(health(c)).isEqualTo(ServingStatus.SERVING);
    aWorkerJoinsAndASnapshotCompletes(trusting, admin(c, null));
  }

  @Test
  void withMutualTlsAClientWithoutACertificateIsRefusedAndAWorkerWithOneTakesPartInASnapshot()
      throws Exception {
    TestPki pki = TestPki.create(dir);
    start(
        CoordinatorConfig.builder()
            .adminToken(AdminToken.of(TOKEN))
            .tls(new TlsFiles(pki.serverCert(), pki.serverKey(), pki.caCert())));

    ManagedChannel noCert =
        channel(TlsChannelCredentials.newBuilder().trustManager(pki.caCert().toFile()).build());
    assertRefused(() -> health(noCert), Status.Code.UNAVAILABLE, null);

    ChannelCredentials withCert =
        TlsChannelCredentials.newBuilder()
            .trustManager(pki.caCert().toFile())
            .keyManager(pki.clientCert().toFile(), pki.clientKey().toFile())
            .build();
    ManagedChannel c = channel(withCert);
    assertThat(health(c)).isEqualTo(ServingStatus.SERVING);
    assertRefused(
        () -> admin(c, null).getCluster(GetClusterRequest.getDefaultInstance()),
        Status.Code.UNAUTHENTICATED,
        "admin token required");
    // the worker-facing service wants a certificate that names the worker
    TestPki.Issued solo = pki.worker("solo");
    aWorkerJoinsAndASnapshotCompletes(
        TlsChannelCredentials.newBuilder()
            .trustManager(pki.caCert().toFile())
            .keyManager(solo.cert().toFile(), solo.key().toFile())
            .build(),
        admin(c, "Bearer " + TOKEN));
  }

  @Test
  void aMissingKeyFileStopsTheStartWithItsName() throws Exception {
    TestPki pki = TestPki.create(dir);
    Path missing = dir.resolve("nope.key");
    assertThatThrownBy(
            () -> start(CoordinatorConfig.builder().tls(TlsFiles.of(pki.serverCert(), missing))))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(missing.toString());
    assertThatThrownBy(
            () ->
                start(CoordinatorConfig.builder().tls(TlsFiles.of(pki.serverCert(), pki.caCert()))))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(pki.caCert().toString());
  }
}
