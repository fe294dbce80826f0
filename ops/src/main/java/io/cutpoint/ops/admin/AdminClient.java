package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.AdminGrpc;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A plaintext connection to a coordinator's Admin service; closing it closes the channel. */
public final class AdminClient implements AutoCloseable {

  private final String target;
  private final Duration deadline;
  private final ManagedChannel channel;

  public AdminClient(String target, Duration deadline) {
    this.target = target;
    this.deadline = deadline;
    this.channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
  }

  public String target() {
    return target;
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
    return AdminGrpc.newBlockingStub(channel).withDeadlineAfter(d.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
