package io.cutpoint.server.sim;

import io.cutpoint.api.Crc32c;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.server.lifecycle.Piece;
import io.cutpoint.storage.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A worker's piece on its way into the store and back out: what an upload stores (state, channel
 * recordings, counters) and the {@link Piece} the lifecycle is handed, and what a restore or the
 * simulator's checks read back. Going through the store means the cut checked and restored is the
 * one the coordinator committed.
 */
final class StoredPieces {

  private static final byte[] NO_PAYLOAD = new byte[0];

  private StoredPieces() {}

  /** A piece read back: its counters and recorded messages, and the captured state. */
  record Stored(LocalSnapshot cut, byte[] state) {}

  /** The piece the lifecycle is told of when {@code completed} is uploaded. */
  static Piece piece(CompletedLocalSnapshot completed, long epoch) {
    return describe(null, completed, epoch);
  }

  /** Stores {@code completed} as an upload does and returns the piece the lifecycle is told of. */
  static Piece store(SnapshotStore store, CompletedLocalSnapshot completed, long epoch) {
    return describe(store, completed, epoch);
  }

  /** The piece of {@code completed}, stored first unless {@code store} is null. */
  private static Piece describe(SnapshotStore store, CompletedLocalSnapshot completed, long epoch) {
    LocalSnapshot cut = completed.cut();
    long id = cut.snapshotId();
    String worker = cut.workerId();
    byte[] state = completed.state().state();
    if (store != null) {
      store.discardPieces(id, worker);
      store.putStateChunk(id, worker, 0, state, Crc32c.of(state));
    }
    SortedMap<String, List<InTransitMessage>> kept = new TreeMap<>();
    long bytes = 0;
    for (Map.Entry<String, List<InTransitMessage>> e : cut.recordings().entrySet()) {
      List<InTransitMessage> seqs = new ArrayList<>(e.getValue().size());
      for (InTransitMessage m : e.getValue()) {
        bytes += m.payload().length;
        seqs.add(new InTransitMessage(m.seq(), NO_PAYLOAD));
      }
      kept.put(e.getKey(), seqs);
      if (store != null && !e.getValue().isEmpty()) {
        store.putChannelRecording(id, ChannelId.of(e.getKey(), worker), e.getValue());
      }
    }
    LocalSnapshotMeta meta =
        LocalSnapshotMeta.newBuilder()
            .setSnapshotId(id)
            .setWorkerId(worker)
            .setEpoch(epoch)
            .addAllSent(counters(cut.sent()))
            .addAllReceived(counters(cut.received()))
            .setStateBytes(state.length)
            .setStateCrc32C(Crc32c.of(state))
            .setFirstMarkerFrom(cut.firstMarkerFrom() == null ? "" : cut.firstMarkerFrom())
            .build();
    if (store != null) {
      store.putWorkerMeta(id, meta);
    }
    LocalSnapshot seqsOnly =
        new LocalSnapshot(id, worker, cut.sent(), cut.received(), kept, cut.firstMarkerFrom());
    return new Piece(meta, seqsOnly, 1, bytes);
  }

  /** {@code worker}'s piece of {@code snapshotId} as stored, if the store has it. */
  static Optional<Stored> read(
      SnapshotStore store, long snapshotId, String worker, Collection<String> incoming) {
    Optional<LocalSnapshotMeta> meta = store.workerMeta(snapshotId, worker);
    if (meta.isEmpty()) {
      return Optional.empty();
    }
    ByteArrayOutputStream state = new ByteArrayOutputStream();
    store.readState(snapshotId, worker, state::writeBytes);
    SortedMap<String, List<InTransitMessage>> recordings = new TreeMap<>();
    for (String from : incoming) {
      recordings.put(from, store.readChannel(snapshotId, ChannelId.of(from, worker)));
    }
    LocalSnapshotMeta m = meta.get();
    LocalSnapshot cut =
        new LocalSnapshot(
            snapshotId,
            worker,
            counters(m.getSentList()),
            counters(m.getReceivedList()),
            recordings,
            m.getFirstMarkerFrom().isEmpty() ? null : m.getFirstMarkerFrom());
    return Optional.of(new Stored(cut, state.toByteArray()));
  }

  private static List<ChannelCounter> counters(Map<String, Long> byPeer) {
    List<ChannelCounter> out = new ArrayList<>(byPeer.size());
    byPeer.forEach(
        (peer, count) ->
            out.add(ChannelCounter.newBuilder().setPeer(peer).setCount(count).build()));
    return out;
  }

  private static SortedMap<String, Long> counters(List<ChannelCounter> list) {
    SortedMap<String, Long> out = new TreeMap<>();
    list.forEach(c -> out.put(c.getPeer(), c.getCount()));
    return out;
  }
}
