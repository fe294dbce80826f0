package io.cutpoint.client.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.Backoff;
import io.grpc.Status;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When a session joins again: at once after a refusal naming the leader, a few times in a row. */
class RejoinDelayTest {

  private static final Status NAMES_LEADER =
      Status.UNAVAILABLE.withDescription("not the leader; the leader is b:1");

  /** No jitter: the random source sits in the middle of its range. */
  private final RejoinDelay delay =
      new RejoinDelay(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), () -> 0.5));

  @Test
  void aRefusalNamingTheLeaderIsFollowedAtOnceUpToTheLimitThenTheBackoffApplies() {
    for (int i = 0; i < RejoinDelay.MAX_REDIRECTS; i++) {
      assertThat(delay.after(NAMES_LEADER)).as("redirect %d", i + 1).isZero();
    }
    assertThat(delay.after(NAMES_LEADER)).isEqualTo(Duration.ofMillis(100));
    assertThat(delay.after(NAMES_LEADER)).as("the count starts over after a backoff").isZero();
    assertThat(delay.attempts()).isEqualTo(1);
  }

  @Test
  void otherEndingsWaitForTheGrowingBackoff() {
    assertThat(delay.after(Status.UNAVAILABLE.withDescription("io exception")))
        .isEqualTo(Duration.ofMillis(100));
    assertThat(delay.after(Status.UNAVAILABLE.withDescription("not the leader; no leader is")))
        .isEqualTo(Duration.ofMillis(200));
    assertThat(delay.after(Status.CANCELLED)).isEqualTo(Duration.ofMillis(400));
    assertThat(
            delay.after(Status.FAILED_PRECONDITION.withDescription(NAMES_LEADER.getDescription())))
        .isEqualTo(Duration.ofMillis(800));
  }

  @Test
  void aWelcomeStartsBothCountsOver() {
    delay.after(Status.CANCELLED);
    delay.after(Status.CANCELLED);
    for (int i = 0; i < RejoinDelay.MAX_REDIRECTS; i++) {
      delay.after(NAMES_LEADER);
    }
    delay.welcomed();
    assertThat(delay.after(NAMES_LEADER)).isZero();
    assertThat(delay.after(Status.CANCELLED)).isEqualTo(Duration.ofMillis(100));
  }
}
