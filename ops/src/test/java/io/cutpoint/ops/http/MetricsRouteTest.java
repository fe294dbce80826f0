package io.cutpoint.ops.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} on the HTTP port: the Prometheus text format, open even when the API wants a
 * token.
 */
class MetricsRouteTest {

  @TempDir Path dir;

  @Test
  void servesTheRegistryInPrometheusTextFormatWithoutAToken() throws Exception {
    try (LiveCluster c = LiveCluster.start(dir, "s3cret", null, 0, Duration.ZERO)) {
      Http http = new Http(HttpClient.newHttpClient(), c.base(), null);
      Counter.builder("cutpoint.test.events")
          .tag("outcome", "ok")
          .register(c.metrics.registry())
          .increment(3);
      HttpResponse<String> r = http.get("/metrics");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type"))
          .contains(HttpEndpoint.METRICS_CONTENT_TYPE);
      assertThat(r.body()).contains("cutpoint_test_events_total{outcome=\"ok\"} 3.0");
      assertThat(r.body())
          .contains("jvm_memory_used_bytes", "process_uptime_seconds", "system_cpu_count");

      HttpResponse<String> missing = http.get("/nothing");
      assertThat(missing.statusCode()).isEqualTo(404);
      assertThat(missing.body()).contains("NOT_FOUND");
      assertThat(http.send("HEAD", "/metrics", null).statusCode()).isEqualTo(200);
      assertThat(http.post("/metrics", "").statusCode()).isEqualTo(405);
    }
  }
}
