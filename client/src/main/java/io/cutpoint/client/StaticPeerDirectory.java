package io.cutpoint.client;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link PeerDirectory} backed by a concurrent map. */
final class StaticPeerDirectory implements PeerDirectory {

  private final Map<String, String> addresses = new ConcurrentHashMap<>();

  StaticPeerDirectory(Map<String, String> initial) {
    update(initial);
  }

  @Override
  public Optional<String> addressOf(String workerId) {
    return Optional.ofNullable(addresses.get(workerId));
  }

  @Override
  public void update(Map<String, String> addressesByWorkerId) {
    addressesByWorkerId.forEach(
        (id, address) -> {
          Objects.requireNonNull(id, "worker id");
          addresses.put(id, PeerEndpoint.check(address));
        });
  }
}
