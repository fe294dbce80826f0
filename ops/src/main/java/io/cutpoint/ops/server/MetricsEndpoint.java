package io.cutpoint.ops.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Serves a registry in the Prometheus text format at {@code GET /metrics} over plain HTTP, on
 * one daemon thread (scrapes are rare and cheap).
 */
public final class MetricsEndpoint implements AutoCloseable {

  /** Content type of the Prometheus text exposition format 0.0.4. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer http;
  private final ExecutorService executor;

  private MetricsEndpoint(HttpServer http, ExecutorService executor) {
    this.http = http;
    this.executor = executor;
  }

  /**
   * Starts serving on {@code host:port} ({@code port} 0 = any free port).
   *
   * @throws IOException when the port cannot be bound
   */
  public static MetricsEndpoint start(String host, int port, PrometheusMeterRegistry registry)
      throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "cutpoint-metrics-http");
      t.setDaemon(true);
      return t;
    });
    http.setExecutor(executor);
    http.createContext("/", exchange -> handle(exchange, registry));
    http.start();
    return new MetricsEndpoint(http, executor);
  }

  private static void handle(HttpExchange exchange, PrometheusMeterRegistry registry)
      throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        reply(exchange, 405, "text/plain; charset=utf-8", "method not allowed\n");
      } else if (path.equals("/metrics")) {
        reply(exchange, 200, CONTENT_TYPE, registry.scrape());
      } else if (path.equals("/")) {
        reply(exchange, 200, "text/plain; charset=utf-8",
            "Cutpoint coordinator metrics: GET /metrics (Prometheus text format)\n");
      } else {
        reply(exchange, 404, "text/plain; charset=utf-8", "not found: " + path + "\n");
      }
    }
  }

  private static void reply(HttpExchange exchange, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(code, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** The port actually bound. */
  public int port() {
    return http.getAddress().getPort();
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
