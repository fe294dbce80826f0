package io.cutpoint.ops.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP client for the API tests. */
final class Http {

  private final HttpClient client;
  private final String base;
  private final String token;

  Http(HttpClient client, String base, String token) {
    this.client = client;
    this.base = base;
    this.token = token;
  }

  Http withToken(String t) {
    return new Http(client, base, t);
  }

  HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) throws Exception {
    return send("GET", path, null);
  }

  HttpResponse<String> post(String path, String body) throws Exception {
    return send("POST", path, body);
  }
}
