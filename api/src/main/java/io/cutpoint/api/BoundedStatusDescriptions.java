package io.cutpoint.api;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;

/**
 * Cuts every status description a server sends to at most {@link #MAX_DESCRIPTION_BYTES} bytes of
 * UTF-8. A description that echoes input (a worker id, an address, a list of peers) could otherwise
 * outgrow the peer's limit on trailers, and the call would reach the client as INTERNAL with an
 * HTTP/2 error instead of its own code. Installed once on every Cutpoint server, for all services.
 */
public final class BoundedStatusDescriptions implements ServerInterceptor {

  /** Longest description sent, in UTF-8 bytes (percent-encoding at most triples it on the wire). */
  public static final int MAX_DESCRIPTION_BYTES = 1024;

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    return next.startCall(
        new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            super.close(bounded(status), trailers);
          }
        },
        headers);
  }

  /** {@code status} with its description cut short when it is too long; the code is kept. */
  public static Status bounded(Status status) {
    String d = status.getDescription();
    return d == null || d.length() <= MAX_DESCRIPTION_BYTES / 3
        ? status
        : status.withDescription(bounded(d));
  }

  /**
   * {@code text} cut to at most {@link #MAX_DESCRIPTION_BYTES} UTF-8 bytes, saying how long it was.
   */
  public static String bounded(String text) {
    if (text.getBytes(StandardCharsets.UTF_8).length <= MAX_DESCRIPTION_BYTES) {
      return text;
    }
    String suffix = "... (" + text.length() + " characters)";
    int budget = MAX_DESCRIPTION_BYTES - suffix.length();
    int end = 0;
    int bytes = 0;
    while (end < text.length()) {
      int cp = text.codePointAt(end);
      int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + n > budget) {
        break;
      }
      bytes += n;
      end += Character.charCount(cp);
    }
    return text.substring(0, end) + suffix;
  }
}
