package io.cutpoint.client.engine;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * When this worker did its part of a snapshot, on the engine's clock (nanoseconds): the start
 * command or the first marker arrived and the state capture began, the capture ended and the
 * markers went out, each recorded incoming channel's marker arrived, and the last one did. What a
 * snapshot's trace shows of the worker.
 *
 * @param beganNanos the capture began
 * @param capturedNanos the capture ended, the markers were sent
 * @param closedNanos by sender, in the senders' order: when that channel's marker closed its
 *     recording
 * @param completedNanos the local snapshot was complete
 */
public record LocalTimeline(
    long beganNanos, long capturedNanos, Map<String, Long> closedNanos, long completedNanos) {

  /** No timeline (a piece built by hand). */
  public static final LocalTimeline NONE = new LocalTimeline(0, 0, new TreeMap<>(), 0);

  public LocalTimeline {
    // unmodifiableMap over a TreeMap: TeaVM's class library (the playground) has no
    // unmodifiableSortedMap
    closedNanos = Collections.unmodifiableMap(new TreeMap<>(closedNanos));
  }

  /** Whether the engine recorded this timeline (a hand-built piece has none). */
  public boolean known() {
    return completedNanos != 0 || capturedNanos != 0;
  }
}
