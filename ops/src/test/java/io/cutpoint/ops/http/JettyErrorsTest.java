package io.cutpoint.ops.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What Jetty refuses before a route sees it is answered in the API's JSON, not an HTML page. */
class JettyErrorsTest {

  @TempDir Path dir;

  @Test
  void aHeaderTooLargeIsA431WithAJsonBody() throws Exception {
    try (LiveCluster c = LiveCluster.start(dir, null, null, 0, Duration.ofHours(1))) {
      URI base = URI.create(c.base());
      String answer =
          ApiGuardTest.request(
              base,
              "GET",
              "/api/v1/cluster",
              "localhost:" + base.getPort() + "\r\nX-Big: " + "x".repeat(20_000),
              null);

      assertThat(answer).startsWith("HTTP/1.1 431").containsIgnoringCase("application/json");
      JsonObject body =
          JsonParser.parseString(answer.substring(answer.indexOf("\r\n\r\n") + 4))
              .getAsJsonObject();
      assertThat(body.get("code").getAsString()).isEqualTo("HTTP_431");
    }
  }
}
