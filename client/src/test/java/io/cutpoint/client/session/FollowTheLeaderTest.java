package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session over a {@link LeaderChannel} after a failover: it follows a standby's refusal that
 * names the leader at once, and tells the others which coordinator it could not reach, so that a
 * standby can hold its refusal until a new leader is elected.
 */
class FollowTheLeaderTest {

  private static final Metadata.Key<String> UNREACHABLE =
      Metadata.Key.of(LeaderChannel.UNREACHABLE_HEADER, Metadata.ASCII_STRING_MARSHALLER);

  /** So long that a test which waited for the backoff would time out. */
  private static final Duration HOUR = Duration.ofHours(1);

  private final InProcessCoordinator standby = new InProcessCoordinator();
  private final InProcessCoordinator leader = new InProcessCoordinator();
  private final FakeWorker worker = new FakeWorker("w", List.of("a"), List.of("a"));
  private LeaderChannel channel;
  private CoordinatorSession session;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (session != null) {
      session.close();
    }
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    standby.close();
    leader.close();
  }

  /** Addresses {@code standby:1} and {@code leader:1}; any other address has no server. */
  private LeaderChannel over(String... addresses) {
    Map<String, String> names = Map.of("standby:1", standby.name, "leader:1", leader.name);
    channel =
        new LeaderChannel(
            List.of(addresses),
            a -> {
              String name = names.getOrDefault(a, InProcessServerBuilder.generateName());
              ManagedChannel c = InProcessChannelBuilder.forName(name).build();
              return c;
            });
    return channel;
  }

  private void start(Duration reconnect) {
    session =
        new CoordinatorSession(
            channel, worker, SessionOptions.defaults().withReconnect(reconnect, reconnect));
    session.start();
  }

  @Test
  void aRefusalThatNamesTheLeaderIsFollowedAtOnceNotAfterTheBackoff() throws Exception {
    standby.fake.refusals.add(
        Status.UNAVAILABLE.withDescription("not the leader; the leader is leader:1"));
    over("standby:1", "leader:1");
    start(HOUR);

    session.joined().get(20, TimeUnit.SECONDS);

    assertThat(standby.fake.joins).hasSize(1);
    assertThat(leader.fake.joins).hasSize(1);
    assertThat(channel.current()).isEqualTo("leader:1");
  }

  @Test
  void callsNameTheCoordinatorThatCouldNotBeReachedUntilOneAnswers() throws Exception {
    over("gone:1", "leader:1");
    start(Duration.ofMillis(10));

    session.joined().get(20, TimeUnit.SECONDS);

    assertThat(leader.headers).isNotEmpty();
    assertThat(leader.headers.get(0).get(UNREACHABLE)).isEqualTo("gone:1");
    assertThat(channel.unreachable()).isEmpty(); // the leader answered
  }
}
