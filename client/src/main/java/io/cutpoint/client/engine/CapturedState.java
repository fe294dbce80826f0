package io.cutpoint.client.engine;

import io.cutpoint.client.chunks.KeyedState;
import java.util.List;
import java.util.Objects;

/**
 * A worker's local state as the application captured it for a snapshot: the state bytes, plus what
 * the application declares about itself at that instant (used by the stable-property analyses:
 * termination needs activity, deadlock needs the wait-for edges).
 *
 * @param state the application's state; not copied (empty when it was handed over as entries)
 * @param activity whether the worker has work of its own to do
 * @param waitingFor peers this worker is blocked on
 * @param entries the state as sorted entries, or null when it is {@code state}
 */
public record CapturedState(
    byte[] state, Activity activity, List<WaitFor> waitingFor, KeyedState entries) {

  public CapturedState {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(activity, "activity");
    waitingFor = List.copyOf(waitingFor);
    if (entries != null && state.length > 0) {
      throw new IllegalArgumentException("a state is either bytes or entries, not both");
    }
  }

  /** A state of bytes, with declarations. */
  public CapturedState(byte[] state, Activity activity, List<WaitFor> waitingFor) {
    this(state, activity, waitingFor, null);
  }

  /** Just state bytes, with no declarations. */
  public static CapturedState of(byte[] state) {
    return new CapturedState(state, Activity.UNSPECIFIED, List.of());
  }

  /**
   * A state handed over as sorted entries ({@link KeyedState}), with declarations: its chunks are
   * cut between entries, and those whose entries did not change since the last capture are neither
   * read nor uploaded again.
   */
  public static CapturedState keyed(
      KeyedState entries, Activity activity, List<WaitFor> waitingFor) {
    return new CapturedState(
        new byte[0], activity, waitingFor, Objects.requireNonNull(entries, "entries"));
  }

  /** Whether the state was handed over as entries. */
  public boolean isKeyed() {
    return entries != null;
  }

  /** The state's bytes: those handed over, or the entries' encoding (made on each call). */
  public byte[] bytes() {
    return entries != null ? entries.toBytes() : state;
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
