package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.AdminGrpc;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptors;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A connection to a coordinator's Admin service, plaintext or TLS, that sends the admin token (when
 * there is one) as {@code authorization: Bearer <token>} on every call; closing it closes the
 * channel.
 */
public final class AdminClient implements AutoCloseable {

  /**
   * The largest answer taken: a snapshot's manifest names its whole topology, which for a large
   * cluster is more than gRPC's default of 4 MiB (the coordinator takes messages of 16 MiB).
   */
  static final int MAX_ANSWER_BYTES = 64 << 20;

  private final String target;
  private final Duration deadline;
  private final ManagedChannel managed;
  private final Channel channel;

  /** Plaintext, without a token. */
  public AdminClient(String target, Duration deadline) {
    this(target, deadline, InsecureChannelCredentials.create(), null);
  }

  /**
   * @param credentials plaintext or TLS
   * @param token the admin token; null = send none
   */
  public AdminClient(
      String target, Duration deadline, ChannelCredentials credentials, String token) {
    this.target = target;
    this.deadline = deadline;
    this.managed =
        NettyChannelBuilder.forTarget(target, credentials)
            .maxInboundMessageSize(MAX_ANSWER_BYTES)
            .build();
    if (token == null) {
      this.channel = managed;
    } else {
      Metadata headers = new Metadata();
      headers.put(AUTHORIZATION, "Bearer " + token);
      this.channel =
          ClientInterceptors.intercept(managed, MetadataUtils.newAttachHeadersInterceptor(headers));
    }
  }

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  public String target() {
    return target;
  }

  /**
   * The channel, with the token on every call (for stubs of other shapes than the blocking one).
   */
  public Channel channel() {
    return channel;
  }

  /** A stub whose calls fail after the configured deadline. */
  public AdminGrpc.AdminBlockingStub stub() {
    return AdminGrpc.newBlockingStub(channel)
        .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A stub for calls that may legitimately take long ({@code --wait}, {@code watch}). */
  public AdminGrpc.AdminBlockingStub stubWithoutDeadline() {
    return AdminGrpc.newBlockingStub(channel);
  }

  /** A stub whose calls fail after {@code d}. */
  public AdminGrpc.AdminBlockingStub stub(Duration d) {
    return AdminGrpc.newBlockingStub(channel)
        .withDeadlineAfter(d.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    managed.shutdownNow();
    try {
      managed.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
