package io.cutpoint.ops.http;

import io.cutpoint.ops.format.Json;
import io.grpc.Status;
import java.util.Locale;

/**
 * The API's error body, {@code {"code": "NOT_FOUND", "message": "..."}}, for the routes and for the
 * event stream alike.
 */
final class ApiErrors {

  /** The {@code WWW-Authenticate} value of a 401 answer. */
  static final String CHALLENGE = "Bearer realm=\"cutpoint\"";

  private ApiErrors() {}

  static String json(String code, String message) {
    return Json.object()
        .put("code", code)
        .put("message", message == null ? "" : message)
        .toString();
  }

  /** A gRPC status as the API's error body: its code, and its description or the code in words. */
  static String json(Status status) {
    String description = status.getDescription();
    return json(
        status.getCode().name(),
        description == null
            ? status.getCode().name().toLowerCase(Locale.ROOT).replace('_', ' ')
            : description);
  }
}
