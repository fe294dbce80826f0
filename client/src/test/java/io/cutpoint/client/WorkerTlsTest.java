package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.testing.TestPki;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCredentials;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Worker-to-worker channels over mutual TLS. */
class WorkerTlsTest {

  @TempDir Path dir;

  /**
   * Server side with the server certificate, client side with the client certificate, both trusting
   * the CA.
   */
  private static ServerCredentials serverSide(TestPki pki) throws Exception {
    return TlsServerCredentials.newBuilder()
        .keyManager(pki.serverCert().toFile(), pki.serverKey().toFile())
        .trustManager(pki.caCert().toFile())
        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
        .build();
  }

  /**
   * The client side of worker {@code id}: its own certificate (SAN URI cutpoint://worker/ID),
   * trusting the CA.
   */
  private static ChannelCredentials clientSide(TestPki pki, String id) throws Exception {
    return clientSide(pki, pki.worker(id));
  }

  private static ChannelCredentials clientSide(TestPki pki, TestPki.Issued cert) throws Exception {
    return TlsChannelCredentials.newBuilder()
        .trustManager(pki.caCert().toFile())
        .keyManager(cert.cert().toFile(), cert.key().toFile())
        .build();
  }

  private static Worker.Builder worker(
      String id, String peer, List<String> got, Map<String, String> peers) {
    return Worker.builder(id)
        .outgoing(peer)
        .incoming(peer)
        .peers(peers)
        .stateHandler(new NoState())
        .messageHandler((from, seq, payload) -> got.add(from + ":" + new String(payload)));
  }

  /** Calls a method nobody serves on {@code address}; returns the status code. */
  private static Status.Code probe(String address, ChannelCredentials credentials)
      throws Exception {
    MethodDescriptor.Marshaller<byte[]> bytes =
        new MethodDescriptor.Marshaller<>() {
          @Override
          public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
          }

          @Override
          public byte[] parse(InputStream stream) {
            try {
              return stream.readAllBytes();
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          }
        };
    MethodDescriptor<byte[], byte[]> nothing =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("cutpoint.test.Nothing/Call")
            .setRequestMarshaller(bytes)
            .setResponseMarshaller(bytes)
            .build();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(PeerEndpoint.parse(address), credentials).build();
    try {
      ClientCalls.blockingUnaryCall(
          channel,
          nothing,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
          new byte[0]);
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void twoWorkersTalkOverMutualTlsAndOnlyAClientWithACertificateReachesTheChannelPort()
      throws Exception {
    TestPki pki = TestPki.create(dir);
    List<String> gotB = new CopyOnWriteArrayList<>();
    List<String> gotA = new CopyOnWriteArrayList<>();
    try (Worker b =
        worker("b", "a", gotB, Map.of())
            .transportCredentials(serverSide(pki), clientSide(pki, "b"))
            .build()) {
      b.start();
      try (Worker a =
          worker("a", "b", gotA, Map.of("b", b.channelAddress()))
              .transportCredentials(serverSide(pki), clientSide(pki, "a"))
              .build()) {
        a.start();
        b.updatePeers(Map.of("a", a.channelAddress()));
        a.send("b", "hello".getBytes());
        b.send("a", "hi".getBytes());
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> gotB.contains("a:hello") && gotA.contains("b:hi"));
      }
      // What reaches b's channel port: over TLS with a client certificate the call gets to gRPC
      // (no such method); in plaintext, or over TLS without a certificate, the connection fails.
      assertThat(probe(b.channelAddress(), clientSide(pki, "a")))
          .isEqualTo(Status.Code.UNIMPLEMENTED);
      assertThat(probe(b.channelAddress(), InsecureChannelCredentials.create()))
          .isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(
              probe(
                  b.channelAddress(),
                  TlsChannelCredentials.newBuilder().trustManager(pki.caCert().toFile()).build()))
          .isEqualTo(Status.Code.UNAVAILABLE);
    }
  }

  @Test
  void underMutualTlsAPeerMustPresentTheCertificateOfTheSenderItClaims() throws Exception {
    TestPki pki = TestPki.create(dir);
    List<String> gotB = new CopyOnWriteArrayList<>();
    try (Worker b =
        Worker.builder("b")
            .incoming("a", "c")
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> gotB.add(from + seq))
            .transportCredentials(serverSide(pki), clientSide(pki, "b"))
            .build()
            .start()) {
      // c's certificate, claiming to be a: refused before anything of the stream is delivered
      try (ForgedClient impostor = new ForgedClient(b.channelAddress(), clientSide(pki, "c"))) {
        ForgedClient.Stream s = impostor.open("a", "b");
        s.send(ForgedClient.data(0, 1, 1, 8));
        Status refused = s.end.get(20, TimeUnit.SECONDS);
        assertThat(refused.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(refused.getDescription())
            .isEqualTo(
                "the client certificate names worker c, not a, the sender this channel header claims");
      }
      // a CA-signed certificate that names no worker
      try (ForgedClient anonymous =
          new ForgedClient(
              b.channelAddress(),
              clientSide(pki, new TestPki.Issued(pki.clientCert(), pki.clientKey())))) {
        Status refused = anonymous.open("a", "b").end.get(20, TimeUnit.SECONDS);
        assertThat(refused.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(refused.getDescription())
            .isEqualTo(
                "the client certificate names no worker "
                    + "(a SAN URI cutpoint://worker/ID naming the sender is required under mutual TLS)");
      }
      // the real a, with its own certificate, is delivered on the same channel from position 1
      try (ForgedClient realA = new ForgedClient(b.channelAddress(), clientSide(pki, "a"))) {
        ForgedClient.Stream s = realA.open("a", "b");
        await().atMost(Duration.ofSeconds(20)).until(() -> !s.acks.isEmpty());
        assertThat(s.firstAckPosition()).isZero();
        s.send(ForgedClient.data(0, 1, 1, 8));
        await().atMost(Duration.ofSeconds(20)).until(() -> gotB.contains("a1"));
      }
      assertThat(gotB).containsExactly("a1");
    }
  }
}
