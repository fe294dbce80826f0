package io.cutpoint.client;

import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.LeaderChannel;
import io.cutpoint.client.session.SessionOptions;
import io.grpc.ChannelCredentials;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A worker's own coordinator session ({@link Worker.Builder#coordinators}): a {@link
 * CoordinatorSession} over a {@link LeaderChannel} to the listed coordinators, which follows
 * whichever of them leads. Opened by {@link Worker#start()}, closed by {@link Worker#close()}.
 */
final class CoordinatorLink {

  /** What the builder was given. */
  record Settings(List<String> addresses, ChannelCredentials credentials, SessionOptions options) {}

  private final LeaderChannel channel;
  private final CoordinatorSession session;

  private CoordinatorLink(LeaderChannel channel, CoordinatorSession session) {
    this.channel = channel;
    this.session = session;
  }

  /**
   * Starts joining on behalf of {@code worker}, which must be started. The connections to the
   * coordinators run on the worker's event loop ({@link WorkerControl#coordinatorChannel}).
   */
  static CoordinatorLink open(Settings s, WorkerControl worker) {
    LeaderChannel channel =
        LeaderChannel.forAddresses(
            s.addresses(), a -> worker.coordinatorChannel(a, s.credentials()));
    try {
      return new CoordinatorLink(
          channel, new CoordinatorSession(channel, worker, s.options()).start());
    } catch (RuntimeException e) {
      channel.shutdownNow();
      throw e;
    }
  }

  CoordinatorSession session() {
    return session;
  }

  /** Leaves the coordinator (a graceful leave), then closes the channels. */
  void close() {
    session.close();
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
