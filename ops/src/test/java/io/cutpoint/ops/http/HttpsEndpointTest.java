package io.cutpoint.ops.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.testing.TestPki;
import io.cutpoint.server.security.TlsFiles;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP port with the gRPC port's TLS files: the console and the API over a real TLS handshake,
 * the admin token refused as over gRPC, and plain HTTP to the TLS port refused.
 */
class HttpsEndpointTest {

  private static final String TOKEN = "https-t0ken";

  @TempDir static Path dir;
  private static TestPki pki;
  private static LiveCluster cluster;
  private static HttpClient client;

  @BeforeAll
  static void start() throws Exception {
    pki = TestPki.create(dir);
    cluster =
        LiveCluster.start(
            dir, TOKEN, TlsFiles.of(pki.serverCert(), pki.serverKey()), 0, Duration.ZERO);
    client =
        HttpClient.newBuilder()
            .sslContext(trusting(pki.caCert()))
            .connectTimeout(Duration.ofSeconds(30))
            .build();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Trusts exactly the test CA. */
  private static SSLContext trusting(Path caPem) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(caPem)) {
      trust.setCertificateEntry(
          "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  private static HttpResponse<String> get(String path, String authorization) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(cluster.base() + path)).timeout(Duration.ofSeconds(60));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theConsoleTheApiAndThePlaygroundAnswerOverTlsWithTheServersCertificate() throws Exception {
    assertThat(cluster.base()).startsWith("https://");

    HttpResponse<String> cluster = get("/api/v1/cluster", "Bearer " + TOKEN);

    assertThat(cluster.statusCode()).as(cluster.body()).isEqualTo(200);
    assertThat(cluster.body()).startsWith("{");
    var session = cluster.sslSession().orElseThrow();
    assertThat(session.getProtocol()).startsWith("TLSv1.");
    assertThat(
            ((X509Certificate) session.getPeerCertificates()[0])
                .getSubjectX500Principal()
                .getName())
        .isEqualTo("CN=localhost");
    assertThat(get("/", null).body()).contains("<title>Cutpoint console</title>");
    assertThat(get("/play/", null).body()).contains("<title>Cutpoint playground</title>");
    assertThat(get("/play/engine.js", null).statusCode()).isEqualTo(200);
  }

  @Test
  void theAdminTokenIsRefusedOverTlsAsOverGrpc() throws Exception {
    HttpResponse<String> none = get("/api/v1/snapshots", null);
    HttpResponse<String> wrong = get("/api/v1/snapshots", "Bearer not-the-token");

    for (HttpResponse<String> r : java.util.List.of(none, wrong)) {
      assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
      assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"cutpoint\"");
      assertThat(r.body()).contains("\"code\":\"UNAUTHENTICATED\"");
    }
  }

  @Test
  void plainHttpToTheTlsPortIsRefusedAndTheNextHttpsCallIsServed() throws Exception {
    byte[] answer;
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", cluster.http.port()), 30_000);
      s.setSoTimeout(30_000); // a port that hung on plain text would fail here, not pass
      OutputStream out = s.getOutputStream();
      out.write(
          "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      answer = s.getInputStream().readAllBytes(); // ends when the server closes the connection
    }
    String text = new String(answer, StandardCharsets.ISO_8859_1);
    assertThat(text).doesNotContain("200 OK").doesNotContain("jvm_");
    assertThat(get("/metrics", null).statusCode()).isEqualTo(200);
  }
}
