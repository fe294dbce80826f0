package io.cutpoint.ops.http;

import io.cutpoint.ops.format.Json;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The errors Jetty answers itself, before a request reaches a route (a malformed header, one too
 * large): the same JSON body as the API's own, {@code {"code": "HTTP_431", "message": ...}},
 * instead of an HTML page.
 */
final class JsonErrors extends ErrorHandler {

  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int code,
      String message,
      Throwable cause,
      Callback done) {
    String body =
        Json.object()
            .put("code", "HTTP_" + code)
            .put("message", message == null ? "" : message)
            .toString();
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), done);
  }
}
