package io.cutpoint.server.security;

import static io.cutpoint.server.testing.RawWorker.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.DownloadPart;
import io.cutpoint.api.v1.DownloadRequest;
import io.cutpoint.api.v1.GetSnapshotRequest;
import io.cutpoint.api.v1.Join;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import io.cutpoint.client.session.WorkerToken;
import io.cutpoint.client.testing.TestPki;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.testing.RawWorker;
import io.grpc.CallCredentials;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Impostor workers over loopback Netty: without the worker token nothing of the worker-facing
 * service answers; uploads and downloads are only for the caller's own live session; under mutual
 * TLS the worker id is the one the client certificate names.
 */
class WorkerAuthTest {

  private static final String TOKEN = "worker-secret-0123";

  @TempDir Path dir;
  private CoordinatorServer server;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    if (server != null) {
      server.close();
    }
  }

  private void start(CoordinatorConfig.Builder b) throws Exception {
    server =
        CoordinatorServer.start(
            b.port(0)
                .dataDir(dir)
                .snapshotInterval(Duration.ZERO)
                .heartbeatInterval(Duration.ofMillis(200))
                .heartbeatTimeout(Duration.ofSeconds(30))
                .build(),
            new SimpleMeterRegistry());
  }

  private ManagedChannel channel(ChannelCredentials credentials) {
    ManagedChannel c =
        NettyChannelBuilder.forTarget(server.target(), credentials)
            .overrideAuthority("localhost")
            .build();
    closing.add(
        () -> {
          c.shutdownNow();
          c.awaitTermination(5, TimeUnit.SECONDS);
        });
    return c;
  }

  private RawWorker raw(ManagedChannel c, String id, CallCredentials creds) {
    CoordinatorGrpc.CoordinatorStub stub = CoordinatorGrpc.newStub(c);
    RawWorker w = new RawWorker(creds == null ? stub : stub.withCallCredentials(creds), id);
    closing.add(w);
    return w;
  }

  private static Status statusOf(CompletableFuture<?> f) throws Exception {
    try {
      f.get(30, TimeUnit.SECONDS);
      return Status.OK;
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause());
    }
  }

  private static Status downloadStatus(
      CoordinatorGrpc.CoordinatorBlockingStub stub, long id, String worker) {
    try {
      Iterator<DownloadPart> it =
          stub.withDeadlineAfter(30, TimeUnit.SECONDS)
              .downloadSnapshot(
                  DownloadRequest.newBuilder().setSnapshotId(id).setWorkerId(worker).build());
      it.forEachRemaining(p -> {});
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  private static List<UploadPart> piece(long id, String worker) {
    return RawWorker.upload(meta(id, worker), new byte[] {1, 2, 3}, 2, List.of());
  }

  private long complete(AdminGrpc.AdminBlockingStub admin, long id) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin
                        .getSnapshot(GetSnapshotRequest.newBuilder().setSnapshotId(id).build())
                        .getManifest()
                        .getStatus()
                    == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    return id;
  }

  @Test
  void uploadsAndDownloadsAreOnlyForTheCallersOwnLiveSession() throws Exception {
    start(CoordinatorConfig.builder());
    ManagedChannel c = channel(InsecureChannelCredentials.create());
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(c).withDeadlineAfter(30, TimeUnit.SECONDS);
    RawWorker a = raw(c, "a", null).join(List.of(), List.of());
    RawWorker b = raw(c, "b", null).join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    b.await(CoordinatorMessage::hasWelcome);
    assertThat(a.secret()).hasSize(64).isNotEqualTo(b.secret());
    long id = admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();

    // a stranger without a session, and b with its own secret, cannot upload a's piece
    CoordinatorGrpc.CoordinatorStub stranger = CoordinatorGrpc.newStub(c);
    Status s = statusOf(RawWorker.sendRaw(stranger, piece(id, "a")));
    assertThat(s.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(s.getDescription())
        .contains("does not carry the session secret of worker a's live session");
    assertThat(statusOf(RawWorker.sendRaw(b.transfers(), piece(id, "a"))).getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    // the real ones can
    assertThat(statusOf(RawWorker.sendRaw(a.transfers(), piece(id, "a")))).isEqualTo(Status.OK);
    assertThat(statusOf(RawWorker.sendRaw(b.transfers(), piece(id, "b")))).isEqualTo(Status.OK);
    complete(admin, id);

    assertThat(downloadStatus(CoordinatorGrpc.newBlockingStub(c), id, "a").getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(downloadStatus(b.blockingTransfers(c), id, "a").getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(downloadStatus(a.blockingTransfers(c), id, "a")).isEqualTo(Status.OK);

    // the secret of an ended session is worth nothing to the next one
    String old = a.secret();
    a.close();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !server.context().membership().isLive("a"));
    RawWorker again = raw(c, "a", null).join(List.of(), List.of());
    again.await(CoordinatorMessage::hasWelcome);
    assertThat(
            downloadStatus(
                    CoordinatorGrpc.newBlockingStub(c).withInterceptors(secretHeader(old)), id, "a")
                .getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(downloadStatus(again.blockingTransfers(c), id, "a")).isEqualTo(Status.OK);
  }

  private static io.grpc.ClientInterceptor secretHeader(String secret) {
    io.grpc.Metadata md = new io.grpc.Metadata();
    md.put(WorkerIdentity.SESSION_SECRET, secret);
    return io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(md);
  }

  @Test
  void withAWorkerTokenAnImpostorCannotJoinUploadOrPreemptAFreshRejoin() throws Exception {
    start(CoordinatorConfig.builder().workerToken(AdminToken.of(TOKEN)).host("127.0.0.1"));
    ManagedChannel c = channel(InsecureChannelCredentials.create());
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(c).withDeadlineAfter(30, TimeUnit.SECONDS);
    WorkerToken token = WorkerToken.of(TOKEN);

    // S1: a join of a new id without the token is refused and leaves no trace
    Status s = raw(c, "intruder", null).join(List.of("bank-1"), List.of()).endStatus();
    assertThat(s.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(s.getDescription()).isEqualTo("worker token required");
    assertThat(
            raw(c, "intruder", WorkerToken.of(TOKEN + "x"))
                .join(List.of(), List.of())
                .endStatus()
                .getCode())
        .isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(server.context().membership().view().members()).isEmpty();

    RawWorker bank = raw(c, "bank-1", token).join(List.of(), List.of());
    bank.await(CoordinatorMessage::hasWelcome);
    long id = admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
    // an upload without the token is refused before anything else is looked at
    assertThat(
            statusOf(
                    RawWorker.sendRaw(
                        RawWorker.withSecret(CoordinatorGrpc.newStub(c), bank.secret()),
                        piece(id, "bank-1")))
                .getCode())
        .isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(statusOf(RawWorker.sendRaw(bank.transfers(), piece(id, "bank-1"))))
        .isEqualTo(Status.OK);
    complete(admin, id);
    assertThat(
            downloadStatus(
                    CoordinatorGrpc.newBlockingStub(c)
                        .withInterceptors(secretHeader(bank.secret())),
                    id,
                    "bank-1")
                .getCode())
        .isEqualTo(Status.Code.UNAUTHENTICATED);

    // S2: bank-1 is lost; an impostor's fresh join without the token does not take its place
    bank.close();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !server.context().membership().isLive("bank-1"));
    Status impostor =
        raw(c, "bank-1", null)
            .join(
                Join.newBuilder()
                    .setWorkerId("bank-1")
                    .setChannelAddress("localhost:7000")
                    .setFresh(true)
                    .build())
            .endStatus();
    assertThat(impostor.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    raw(c, "bank-1", token).join(List.of(), List.of()).await(CoordinatorMessage::hasWelcome);
  }

  @Test
  void aWorkerOfTheSdkWithTheTokenTakesPartInASnapshot() throws Exception {
    start(CoordinatorConfig.builder().workerToken(AdminToken.of(TOKEN)).host("127.0.0.1"));
    ManagedChannel c = channel(InsecureChannelCredentials.create());
    Worker w =
        Worker.builder("solo")
            .stateHandler(
                new StateHandler() {
                  @Override
                  public byte[] capture() {
                    return "solo-state".getBytes();
                  }

                  @Override
                  public void restore(byte[] s) {}
                })
            .messageHandler((from, seq, payload) -> {})
            .build();
    closing.add(w);
    w.start();
    CoordinatorSession session =
        CoordinatorSession.connect(
            server.target(),
            WorkerToken.of(TOKEN + "\n").with(InsecureChannelCredentials.create()),
            w,
            SessionOptions.defaults().withReconnect(Duration.ofMillis(50), Duration.ofMillis(300)));
    closing.add(session);
    session.joined().orTimeout(20, TimeUnit.SECONDS).join();
    var r =
        AdminGrpc.newBlockingStub(c)
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build());
    assertThat(r.getManifest().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
  }

  @Test
  void underMutualTlsTheWorkerIdIsTheOneItsCertificateNames() throws Exception {
    TestPki pki = TestPki.create(java.nio.file.Files.createDirectories(dir.resolve("pki")));
    start(
        CoordinatorConfig.builder()
            .tls(new TlsFiles(pki.serverCert(), pki.serverKey(), pki.caCert())));
    TestPki.Issued certA = pki.worker("a");
    TestPki.Issued certB = pki.worker("b");
    ManagedChannel asA =
        channel(
            TlsChannelCredentials.newBuilder()
                .trustManager(pki.caCert().toFile())
                .keyManager(certA.cert().toFile(), certA.key().toFile())
                .build());
    ManagedChannel asB =
        channel(
            TlsChannelCredentials.newBuilder()
                .trustManager(pki.caCert().toFile())
                .keyManager(certB.cert().toFile(), certB.key().toFile())
                .build());
    ManagedChannel operator =
        channel(
            TlsChannelCredentials.newBuilder()
                .trustManager(pki.caCert().toFile())
                .keyManager(pki.clientCert().toFile(), pki.clientKey().toFile())
                .build());
    AdminGrpc.AdminBlockingStub admin =
        AdminGrpc.newBlockingStub(operator).withDeadlineAfter(30, TimeUnit.SECONDS);

    Status s = raw(asB, "a", null).join(List.of(), List.of()).endStatus();
    assertThat(s.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(s.getDescription()).isEqualTo("the client certificate names worker b, not a");
    Status noWorker = raw(operator, "a", null).join(List.of(), List.of()).endStatus();
    assertThat(noWorker.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(noWorker.getDescription()).startsWith("the client certificate names no worker");

    RawWorker a = raw(asA, "a", null).join(List.of(), List.of());
    a.await(CoordinatorMessage::hasWelcome);
    long id = admin.triggerSnapshot(TriggerSnapshotRequest.getDefaultInstance()).getSnapshotId();
    // b's certificate with a's session secret is still not a
    Status forged =
        statusOf(
            RawWorker.sendRaw(
                RawWorker.withSecret(CoordinatorGrpc.newStub(asB), a.secret()), piece(id, "a")));
    assertThat(forged.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(forged.getDescription()).startsWith("the client certificate names worker b, not a");
    assertThat(statusOf(RawWorker.sendRaw(a.transfers(), piece(id, "a")))).isEqualTo(Status.OK);
    complete(admin, id);
    assertThat(
            downloadStatus(
                    CoordinatorGrpc.newBlockingStub(asB).withInterceptors(secretHeader(a.secret())),
                    id,
                    "a")
                .getCode())
        .isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(downloadStatus(a.blockingTransfers(asA), id, "a")).isEqualTo(Status.OK);
  }
}
