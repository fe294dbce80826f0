package io.cutpoint.client.session;

import io.grpc.CallCredentials;
import io.grpc.ChannelCredentials;
import io.grpc.CompositeChannelCredentials;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The token a coordinator started with {@code --worker-token-file} wants of its workers, sent as
 * {@code authorization: Bearer <token>} on the session, every upload and every download.
 */
public final class WorkerToken extends CallCredentials {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final String token;

  private WorkerToken(String token) {
    this.token = token;
  }

  /**
   * @param token the token; surrounding whitespace (a file's trailing newline) is dropped
   */
  public static WorkerToken of(String token) {
    String t = Objects.requireNonNull(token, "token").strip();
    if (t.isEmpty() || t.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
      throw new IllegalArgumentException(
          "the worker token is empty or has whitespace or control characters");
    }
    return new WorkerToken(t);
  }

  /** {@code transport} (plaintext or TLS) with this token on every call. */
  public ChannelCredentials with(ChannelCredentials transport) {
    return CompositeChannelCredentials.create(transport, this);
  }

  @Override
  public void applyRequestMetadata(RequestInfo info, Executor executor, MetadataApplier applier) {
    try {
      Metadata m = new Metadata();
      m.put(AUTHORIZATION, "Bearer " + token);
      applier.apply(m);
    } catch (RuntimeException e) {
      applier.fail(
          Status.UNAUTHENTICATED.withDescription("cannot attach the worker token").withCause(e));
    }
  }

  @Override
  public String toString() {
    return "WorkerToken[redacted]";
  }
}
