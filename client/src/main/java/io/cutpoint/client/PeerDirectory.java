package io.cutpoint.client;

import java.util.Map;
import java.util.Optional;

/**
 * Where the channel servers of peers listen. A static map for now; a coordinator session feeds
 * changes through {@link WorkerControl#updatePeers}, which lands in {@link #update}.
 */
public interface PeerDirectory {

  /** host:port of {@code workerId}'s channel server, when known. */
  Optional<String> addressOf(String workerId);

  /** Adds or replaces addresses. */
  void update(Map<String, String> addressesByWorkerId);

  /** A thread-safe directory that starts from {@code initial}. */
  static PeerDirectory of(Map<String, String> initial) {
    return new StaticPeerDirectory(initial);
  }
}
