package io.cutpoint.client.engine;

import java.util.List;
import java.util.Objects;

/**
 * A worker's local state as the application captured it for a snapshot: the state bytes, plus what
 * the application declares about itself at that instant (used by the stable-property analyses:
 * termination needs activity, deadlock needs the wait-for edges).
 *
 * @param state the application's state; not copied
 * @param activity whether the worker has work of its own to do
 * @param waitingFor peers this worker is blocked on
 */
public record CapturedState(byte[] state, Activity activity, List<WaitFor> waitingFor) {

  public CapturedState {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(activity, "activity");
    waitingFor = List.copyOf(waitingFor);
  }

  /** Just state bytes, with no declarations. */
  public static CapturedState of(byte[] state) {
    return new CapturedState(state, Activity.UNSPECIFIED, List.of());
  }

  /** Whether a worker has work of its own to do. */
  public enum Activity {
    UNSPECIFIED,
    ACTIVE,
    PASSIVE
  }

  /** The worker is blocked until {@code peer} sends to it; {@code resource} is a label or "". */
  public record WaitFor(String peer, String resource) {
    public WaitFor {
      Objects.requireNonNull(peer, "peer");
      resource = resource == null ? "" : resource;
    }
  }
}
