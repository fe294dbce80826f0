package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.testing.TestPki;
import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Worker-to-worker channels over mutual TLS. */
class WorkerTlsTest {

  @TempDir Path dir;

  /** Server side with the server certificate, client side with the client certificate, both trusting the CA. */
  private static ServerCredentials serverSide(TestPki pki) throws Exception {
    return TlsServerCredentials.newBuilder()
        .keyManager(pki.serverCert().toFile(), pki.serverKey().toFile())
        .trustManager(pki.caCert().toFile())
        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
        .build();
  }

  private static ChannelCredentials clientSide(TestPki pki) throws Exception {
    return TlsChannelCredentials.newBuilder()
        .trustManager(pki.caCert().toFile())
        .keyManager(pki.clientCert().toFile(), pki.clientKey().toFile())
        .build();
  }

  private static Worker.Builder worker(String id, String peer, List<String> got, Map<String, String> peers) {
    return Worker.builder(id).outgoing(peer).incoming(peer).peers(peers)
        .stateHandler(new NoState())
        .messageHandler((from, seq, payload) -> got.add(from + ":" + new String(payload)));
  }

  @Test
  void twoWorkersTalkOverMutualTlsAndAPlaintextPeerGetsNothingThrough() throws Exception {
    TestPki pki = TestPki.create(dir);
    List<String> gotB = new CopyOnWriteArrayList<>();
    List<String> gotA = new CopyOnWriteArrayList<>();
    List<String> gotPlain = new CopyOnWriteArrayList<>();
    try (Worker b = worker("b", "a", gotB, Map.of()).transportCredentials(serverSide(pki), clientSide(pki)).build()) {
      b.start();
      try (Worker a = worker("a", "b", gotA, Map.of("b", b.channelAddress()))
          .transportCredentials(serverSide(pki), clientSide(pki)).build()) {
        a.start();
        b.updatePeers(Map.of("a", a.channelAddress()));
        a.send("b", "hello".getBytes());
        b.send("a", "hi".getBytes());
        await().atMost(Duration.ofSeconds(20)).until(() -> gotB.contains("a:hello") && gotA.contains("b:hi"));
      }
      // A plaintext worker with the same id cannot reach b's TLS channel server.
      try (Worker plain = worker("a", "b", gotPlain, Map.of("b", b.channelAddress())).build()) {
        plain.start();
        plain.send("b", "sneaky".getBytes());
        // Over plaintext a message arrives in milliseconds; here nothing arrives for 3 s.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> gotB.size() == 1);
        assertThat(gotB).containsExactly("a:hello");
        assertThat(b.counters().messagesReceived()).isEqualTo(1);
      }
    }
  }
}
