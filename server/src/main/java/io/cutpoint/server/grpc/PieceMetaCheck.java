package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.ChannelClosed;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.WaitFor;
import io.cutpoint.server.membership.WorkerIds;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The bounds on what an upload header may carry, checked before anything of it is kept: every peer
 * named is a valid worker id, no list is longer than the channels a worker may declare, and free
 * text is short. A header that passes can be stored and echoed without growing unbounded.
 */
final class PieceMetaCheck {

  private PieceMetaCheck() {}

  /** Why {@code meta} is out of bounds (at most {@code maxChannels} per list), or empty. */
  static Optional<String> problem(LocalSnapshotMeta meta, int maxChannels) {
    Optional<String> p = counters(meta.getSentList(), "sent", maxChannels);
    if (p.isPresent()) {
      return p;
    }
    p = counters(meta.getReceivedList(), "received", maxChannels);
    if (p.isPresent()) {
      return p;
    }
    if (meta.getWaitingForCount() > maxChannels) {
      return Optional.of(
          "header lists "
              + meta.getWaitingForCount()
              + " wait-for edges; at most "
              + maxChannels
              + " are allowed");
    }
    for (WaitFor w : meta.getWaitingForList()) {
      Optional<String> q = WorkerIds.problem(w.getPeer());
      if (q.isPresent()) {
        return Optional.of("header: wait-for peer: " + q.get());
      }
      if (w.getResource().length() > WorkerIds.MAX_ID_LENGTH) {
        return Optional.of(
            "header: wait-for resource name is "
                + w.getResource().length()
                + " characters long; at most "
                + WorkerIds.MAX_ID_LENGTH
                + " are allowed");
      }
    }
    return timeline(meta.getTimeline().getClosedList(), maxChannels);
  }

  /** The trace's closed channels: at most one per channel a worker may have, each a worker id. */
  private static Optional<String> timeline(List<ChannelClosed> closed, int maxChannels) {
    if (closed.size() > maxChannels) {
      return Optional.of(
          "header's timeline lists "
              + closed.size()
              + " closed channels; at most "
              + maxChannels
              + " are allowed");
    }
    for (ChannelClosed c : closed) {
      Optional<String> q = WorkerIds.problem(c.getFrom());
      if (q.isPresent()) {
        return Optional.of("header: timeline: closed channel: " + q.get());
      }
    }
    return Optional.empty();
  }

  private static Optional<String> counters(
      List<ChannelCounter> list, String what, int maxChannels) {
    if (list.size() > maxChannels) {
      return Optional.of(
          "header lists "
              + list.size()
              + " "
              + what
              + " counters; at most "
              + maxChannels
              + " are allowed");
    }
    Set<String> seen = new HashSet<>();
    for (ChannelCounter c : list) {
      Optional<String> q = WorkerIds.problem(c.getPeer());
      if (q.isPresent()) {
        return Optional.of("header: " + what + " counter: " + q.get());
      }
      if (!seen.add(c.getPeer())) {
        return Optional.of(
            "header lists the " + what + " counter of peer " + c.getPeer() + " twice");
      }
    }
    return Optional.empty();
  }
}
