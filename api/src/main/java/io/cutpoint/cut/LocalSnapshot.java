package io.cutpoint.cut;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one worker contributes to a cut, apart from its application state bytes: the counters of
 * DESIGN section 2 and the recorded messages of each incoming channel.
 *
 * @param snapshotId the snapshot
 * @param workerId the worker that recorded it
 * @param sent {@code sent_at_cut} by receiving peer, for every outgoing channel
 * @param received {@code received_at_cut} by sending peer, for every incoming channel
 * @param recordings recorded messages by sending peer, for every incoming channel, in order
 * @param firstMarkerFrom the peer whose marker made this worker record, its channel recorded empty;
 *     {@code null} when it recorded as an initiator, or on an early copy of a marker that overtook
 *     data (that channel's state is then the overtaken data)
 */
public record LocalSnapshot(
    long snapshotId,
    String workerId,
    SortedMap<String, Long> sent,
    SortedMap<String, Long> received,
    SortedMap<String, List<InTransitMessage>> recordings,
    String firstMarkerFrom) {

  public LocalSnapshot {
    Objects.requireNonNull(workerId, "workerId");
    sent = copy(sent);
    received = copy(received);
    SortedMap<String, List<InTransitMessage>> rec = new TreeMap<>();
    recordings.forEach((peer, msgs) -> rec.put(peer, List.copyOf(msgs)));
    recordings = SortedCopies.map(rec);
  }

  private static SortedMap<String, Long> copy(Map<String, Long> m) {
    return SortedCopies.map(m);
  }

  /** Whether this worker started the snapshot itself rather than on a marker. */
  public boolean initiator() {
    return firstMarkerFrom == null;
  }

  public Optional<String> firstMarker() {
    return Optional.ofNullable(firstMarkerFrom);
  }

  /** Recorded messages on the channel from {@code peer}, empty when none were recorded. */
  public List<InTransitMessage> recorded(String peer) {
    return recordings.getOrDefault(peer, List.of());
  }

  /** Number of recorded messages over all incoming channels. */
  public long inFlightMessages() {
    return recordings.values().stream().mapToLong(List::size).sum();
  }

  /** Payload bytes of recorded messages over all incoming channels. */
  public long inFlightBytes() {
    return recordings.values().stream()
        .flatMap(List::stream)
        .mapToLong(m -> m.payload().length)
        .sum();
  }
}
