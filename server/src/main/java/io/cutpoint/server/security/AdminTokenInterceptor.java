package io.cutpoint.server.security;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Objects;

/**
 * Lets a call through only if its metadata carries {@code authorization: Bearer <token>} with the
 * coordinator's {@link AdminToken}. Installed on the Admin service alone: workers, health and
 * reflection stay open. Neither the expected nor the presented token is ever logged.
 */
public final class AdminTokenInterceptor implements ServerInterceptor {

  /** The metadata key the token travels under. */
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /** What comes before the token in the header value. */
  public static final String BEARER = "Bearer ";

  private final AdminToken token;

  public AdminTokenInterceptor(AdminToken token) {
    this.token = Objects.requireNonNull(token, "token");
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String value = headers.get(AUTHORIZATION);
    Status refusal = null;
    if (value == null || value.isBlank()) {
      refusal = Status.UNAUTHENTICATED.withDescription("admin token required");
    } else if (!value.regionMatches(true, 0, BEARER, 0, BEARER.length())
        || !token.matches(value.substring(BEARER.length()).strip())) {
      refusal = Status.UNAUTHENTICATED.withDescription("bad admin token");
    }
    if (refusal != null) {
      call.close(refusal, new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }
}
