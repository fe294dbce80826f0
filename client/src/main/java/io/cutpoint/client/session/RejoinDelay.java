package io.cutpoint.client.session;

import io.cutpoint.client.Backoff;
import io.grpc.Status;
import java.time.Duration;

/**
 * How long a session waits before it joins again after its stream ended: the {@link Backoff}'s next
 * delay, except after a standby's refusal that names the leader ({@link LeaderChannel#redirect}),
 * which is followed at once, up to {@link #MAX_REDIRECTS} in a row; past them the backoff applies,
 * so that standbys whose views of the election disagree for a moment are not polled in a loop. A
 * standby holds its refusal back while it knows no leader worth naming, so following it at once
 * costs no polling. Pure logic; the session's loop owns it.
 */
final class RejoinDelay {

  static final int MAX_REDIRECTS = 4;

  private final Backoff backoff;
  private int redirects; // followed at once since the last backoff or welcome

  RejoinDelay(Backoff backoff) {
    this.backoff = backoff;
  }

  /** The delay before the next join, after a stream that ended with {@code status}. */
  Duration after(Status status) {
    if (LeaderChannel.redirect(status) && redirects < MAX_REDIRECTS) {
      redirects++;
      return Duration.ZERO;
    }
    redirects = 0;
    return backoff.next();
  }

  /** The session was welcomed: the next failure starts over. */
  void welcomed() {
    backoff.reset();
    redirects = 0;
  }

  /** Attempts that waited for the backoff since the last welcome. */
  int attempts() {
    return backoff.attempts();
  }
}
