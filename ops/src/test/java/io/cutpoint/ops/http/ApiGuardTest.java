package io.cutpoint.ops.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may call the HTTP API: without an admin token only local callers that name the host as
 * localhost; never a state change from a browser page of another origin.
 */
class ApiGuardTest {

  @TempDir Path dir;

  private static final ApiGuard OPEN = new ApiGuard(false);
  private static final ApiGuard TOKEN = new ApiGuard(true);

  @Test
  void withoutATokenOnlyLocalCallersThatNameTheHostAsLocalhostAreServed() {
    assertThat(OPEN.refusal("127.0.0.1", "localhost:9464", "GET", null)).isEmpty();
    assertThat(OPEN.refusal("127.0.0.1", "127.0.0.1:9464", "POST", null)).isEmpty();
    assertThat(OPEN.refusal("[0:0:0:0:0:0:0:1]", "[::1]:9464", "DELETE", null)).isEmpty();
    assertThat(OPEN.refusal("0:0:0:0:0:0:0:1", "localhost", "GET", null)).isEmpty();

    assertThat(OPEN.refusal("10.1.2.3", "coordinator.example:9464", "GET", null))
        .get()
        .asString()
        .contains("--admin-token-file");
    assertThat(OPEN.refusal("10.1.2.3", "localhost:9464", "POST", null)).isPresent();
    // a page whose name a DNS rebinding points at 127.0.0.1: same origin to the browser
    assertThat(OPEN.refusal("127.0.0.1", "rebind.example:9464", "POST", null)).isPresent();
    assertThat(OPEN.refusal("127.0.0.1", null, "GET", null)).isPresent();

    assertThat(TOKEN.refusal("10.1.2.3", "coordinator.example:9464", "POST", null)).isEmpty();
  }

  @Test
  void aStateChangeFromAPageOfAnotherOriginIsRefusedWhateverTheToken() {
    for (ApiGuard g : new ApiGuard[] {OPEN, TOKEN}) {
      assertThat(g.refusal("127.0.0.1", "localhost:9464", "POST", "http://evil.example"))
          .get()
          .asString()
          .contains("another origin (http://evil.example)");
      assertThat(g.refusal("127.0.0.1", "localhost:9464", "DELETE", "null")).isPresent();
      assertThat(g.refusal("127.0.0.1", "localhost:9464", "POST", "http://localhost:9999"))
          .isPresent();
      // the console's own page, and a read (a browser does not show another origin the answer)
      assertThat(g.refusal("127.0.0.1", "localhost:9464", "POST", "http://localhost:9464"))
          .isEmpty();
      assertThat(g.refusal("127.0.0.1", "localhost:9464", "GET", "http://evil.example")).isEmpty();
    }
  }

  @Test
  void overHttpACrossSiteOrRebindingPauseIsRefusedAndTheScheduleRuns() throws Exception {
    try (LiveCluster c = LiveCluster.start(dir, null, null, 0, Duration.ofHours(1))) {
      URI base = URI.create(c.base());
      String local = "localhost:" + base.getPort();

      String crossSite =
          request(base, "POST", "/api/v1/schedule/pause", local, "http://evil.example");
      assertThat(crossSite).startsWith("HTTP/1.1 403").contains("PERMISSION_DENIED");
      String rebound =
          request(base, "POST", "/api/v1/schedule/pause", "rebind.example:" + base.getPort(), null);
      assertThat(rebound).startsWith("HTTP/1.1 403").contains("--admin-token-file");
      String events = request(base, "GET", "/api/v1/events", "rebind.example", null);
      assertThat(events).startsWith("HTTP/1.1 403");
      assertThat(paused(base, local)).isFalse();

      String own = request(base, "POST", "/api/v1/schedule/pause", local, "http://" + local);
      assertThat(own).startsWith("HTTP/1.1 200");
      assertThat(paused(base, local)).isTrue();
    }
  }

  private static boolean paused(URI base, String host) throws Exception {
    String r = request(base, "GET", "/api/v1/cluster", host, null);
    assertThat(r).startsWith("HTTP/1.1 200");
    String body = r.substring(r.indexOf("\r\n\r\n") + 4);
    return JsonParser.parseString(body)
        .getAsJsonObject()
        .getAsJsonObject("schedule")
        .get("paused")
        .getAsBoolean();
  }

  /** One HTTP/1.1 request with the given Host and Origin headers; the whole answer. */
  static String request(URI base, String method, String path, String host, String origin)
      throws Exception {
    try (Socket s = new Socket(base.getHost(), base.getPort())) {
      s.setSoTimeout(30_000);
      StringBuilder head =
          new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n");
      if (origin != null) {
        head.append("Origin: ").append(origin).append("\r\n");
      }
      head.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
      OutputStream out = s.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
