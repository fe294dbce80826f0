package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which coordinator the next call goes to after a call ends. */
class LeaderChannelTest {

  private static LeaderChannel over(String... addresses) {
    return new LeaderChannel(
        List.of(addresses), a -> InProcessChannelBuilder.forName("leader-channel-" + a).build());
  }

  @Test
  void aRefusalThatNamesTheLeaderMovesTheNextCallThere() throws InterruptedException {
    LeaderChannel c = over("a:1", "b:1", "c:1");
    try {
      assertThat(c.current()).isEqualTo("a:1");
      c.ended("a:1", Status.UNAVAILABLE.withDescription("not the leader; the leader is c:1"));
      assertThat(c.current()).isEqualTo("c:1");
    } finally {
      c.shutdownNow();
      assertThat(c.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void unavailableWithoutALeaderMovesToTheNextAddressInTurn() {
    LeaderChannel c = over("a:1", "b:1", "c:1");
    c.ended("a:1", Status.UNAVAILABLE.withDescription("the coordinator is shutting down"));
    assertThat(c.current()).isEqualTo("b:1");
    c.ended("b:1", Status.UNAVAILABLE.withDescription("not the leader; no leader is elected yet"));
    assertThat(c.current()).isEqualTo("c:1");
    c.ended("c:1", Status.UNAVAILABLE);
    assertThat(c.current()).isEqualTo("a:1");
    c.shutdownNow();
  }

  @Test
  void otherEndingsAndEndingsOfAnEarlierAddressChangeNothing() {
    LeaderChannel c = over("a:1", "b:1");
    c.ended("a:1", Status.CANCELLED);
    c.ended("a:1", Status.FAILED_PRECONDITION.withDescription("not the leader; the leader is b:1"));
    assertThat(c.current()).isEqualTo("a:1");
    c.ended("b:1", Status.UNAVAILABLE.withDescription("not the leader; the leader is b:1"));
    assertThat(c.current()).isEqualTo("a:1");
    c.ended("a:1", Status.UNAVAILABLE.withDescription("not the leader; the leader is a:1"));
    assertThat(c.current()).isEqualTo("a:1"); // the leader is starting: ask it again
    c.shutdownNow();
  }
}
