package io.cutpoint.cut;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A global snapshot as the coordinator assembles it: the topology it covers and one {@link
 * LocalSnapshot} per worker that has reported (possibly not all of them: {@link CutVerifier} says
 * what is missing).
 */
public record Cut(
    long snapshotId,
    SortedSet<String> workers,
    SortedSet<ChannelId> channels,
    SortedMap<String, LocalSnapshot> pieces) {

  public Cut {
    workers = SortedCopies.set(workers);
    channels = SortedCopies.set(channels);
    pieces = SortedCopies.map(pieces);
  }

  /** Builds a cut from pieces, keyed by their worker ids (a later piece of one worker wins). */
  public static Cut of(
      long snapshotId,
      Set<String> workers,
      Set<ChannelId> channels,
      Collection<LocalSnapshot> pieces) {
    SortedMap<String, LocalSnapshot> byWorker = new TreeMap<>();
    for (LocalSnapshot piece : pieces) {
      byWorker.put(piece.workerId(), piece);
    }
    return new Cut(snapshotId, new TreeSet<>(workers), new TreeSet<>(channels), byWorker);
  }

  /** Messages recorded in transit on {@code channel}, as its receiver recorded them. */
  public java.util.List<InTransitMessage> inTransit(ChannelId channel) {
    LocalSnapshot receiver = pieces.get(channel.to());
    return receiver == null ? java.util.List.of() : receiver.recorded(channel.from());
  }

  /** Pieces by worker id, for convenience. */
  public Map<String, LocalSnapshot> byWorker() {
    return pieces;
  }
}
