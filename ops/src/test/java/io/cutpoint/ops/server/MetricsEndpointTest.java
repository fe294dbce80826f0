package io.cutpoint.ops.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class MetricsEndpointTest {

  private static HttpResponse<String> get(HttpClient http, int port, String path, String method)
      throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesTheRegistryInPrometheusTextFormat() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    try (Metrics metrics = new Metrics();
        MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0, metrics.registry())) {
      Counter c = Counter.builder("cutpoint.test.events").tag("outcome", "ok").register(metrics.registry());
      c.increment(3);
      HttpResponse<String> r = get(http, endpoint.port(), "/metrics", "GET");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).contains(MetricsEndpoint.CONTENT_TYPE);
      assertThat(r.body()).contains("cutpoint_test_events_total{outcome=\"ok\"} 3.0");
      assertThat(r.body()).contains("jvm_memory_used_bytes", "process_uptime_seconds", "system_cpu_count");

      assertThat(get(http, endpoint.port(), "/nothing", "GET").statusCode()).isEqualTo(404);
      assertThat(get(http, endpoint.port(), "/metrics", "POST").statusCode()).isEqualTo(405);
      assertThat(get(http, endpoint.port(), "/metrics", "HEAD").statusCode()).isEqualTo(200);
    }
  }
}
