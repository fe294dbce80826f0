package io.cutpoint.ops.bench;

import io.cutpoint.cut.ChannelId;
import io.cutpoint.server.membership.InitiatorSelection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The least time one snapshot of a layout can take on this machine, from the raw limits: the Admin
 * trigger and its answer (one unary round trip), the start command to the initiators (one hop), the
 * marker rounds (one hop per level, see {@link #markerDepth}), the uploads (one unary round trip,
 * all workers in parallel, plus the transfer, see {@link #transferMillis}) and the synced commit,
 * as a periodic snapshot meets it: after the disk was quiet since the last one. Nothing of
 * Cutpoint's own work is in it, and no CPU contention: with many channels on few cores the real
 * floor is higher.
 */
final class CriticalPath {

  private CriticalPath() {}

  /**
   * Marker hops on the longest path: the initiators are the coordinator's own choice ({@link
   * InitiatorSelection}); a worker at hop distance d records its state when its first marker
   * arrives, and its outgoing channels close one hop later, so the depth is the largest d + 1 over
   * every channel's sender.
   */
  static int markerDepth(Layout layout) {
    List<ChannelId> channels = new ArrayList<>();
    layout
        .outgoing()
        .forEach((from, tos) -> tos.forEach(to -> channels.add(ChannelId.of(from, to))));
    Map<String, Integer> distance = new HashMap<>();
    Deque<String> queue = new ArrayDeque<>();
    for (String initiator : InitiatorSelection.select(layout.ids(), channels)) {
      distance.put(initiator, 0);
      queue.add(initiator);
    }
    while (!queue.isEmpty()) {
      String w = queue.poll();
      for (String to : layout.outgoing().get(w)) {
        if (!distance.containsKey(to)) {
          distance.put(to, distance.get(w) + 1);
          queue.add(to);
        }
      }
    }
    int depth = 0;
    for (ChannelId c : channels) {
      depth = Math.max(depth, distance.get(c.from()) + 1);
    }
    return depth;
  }

  /** The floor in milliseconds for {@code stateBytes} per worker. */
  static double limitMillis(Layout layout, long stateBytes, LimitsPhase.Result limits) {
    double unary = limits.unary().p50();
    double hop = limits.markerHop().p50();
    return 2 * unary
        + (1 + markerDepth(layout)) * hop
        + transferMillis(layout.ids().size(), stateBytes, limits)
        + limits.syncedCommitAfterIdle().p50();
  }

  /**
   * The uploads' bytes: every worker's state goes into the one store, at the ingest rate at best,
   * and each worker's state crosses its own stream, all streams at once; streaming and ingest
   * overlap (a piece is stored while the next is sent), so the slower of the two bounds the time.
   */
  static double transferMillis(int workers, long stateBytes, LimitsPhase.Result limits) {
    double ingest = (double) stateBytes * workers / limits.ingestBytesPerSecond();
    double stream = (double) stateBytes / limits.streamBytesPerSecond();
    return Math.max(ingest, stream) * 1000;
  }

  /** The layout a latency row was measured on. */
  static Layout layoutOf(LatencyPhase.Row row) {
    return row.layout().equals("ring") ? Layout.ring(row.workers()) : Layout.mesh(row.workers());
  }
}
