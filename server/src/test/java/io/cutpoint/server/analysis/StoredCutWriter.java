package io.cutpoint.server.analysis;

import io.cutpoint.api.v1.Activity;
import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WaitFor;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes a hand-built snapshot into a {@link SnapshotStore} the way the coordinator does: pending
 * manifest with the topology, every worker's metadata, every channel's recording, then commit (or
 * leave it pending, or finish it as aborted).
 */
final class StoredCutWriter {

  private final Map<String, LocalSnapshotMeta.Builder> workers = new TreeMap<>();
  private final SortedSet<ChannelId> channels = new TreeSet<>();
  private final Map<ChannelId, List<InTransitMessage>> recordings = new TreeMap<>();
  private boolean metaInManifestOnly;

  StoredCutWriter worker(String id, Activity activity, long stateBytes, String... waitsFor) {
    LocalSnapshotMeta.Builder meta =
        LocalSnapshotMeta.newBuilder()
            .setWorkerId(id)
            .setActivity(activity)
            .setStateBytes(stateBytes);
    for (String w : waitsFor) {
      String[] peerAndResource = w.split(":", 2);
      meta.addWaitingFor(
          WaitFor.newBuilder()
              .setPeer(peerAndResource[0])
              .setResource(peerAndResource.length > 1 ? peerAndResource[1] : ""));
    }
    workers.put(id, meta);
    return this;
  }

  /** A channel, with {@code payloadSizes.length} messages of those sizes recorded in transit. */
  StoredCutWriter channel(String from, String to, int... payloadSizes) {
    ChannelId c = ChannelId.of(from, to);
    channels.add(c);
    List<InTransitMessage> msgs = new ArrayList<>();
    for (int i = 0; i < payloadSizes.length; i++) {
      msgs.add(new InTransitMessage(10 + i, new byte[payloadSizes[i]]));
    }
    if (!msgs.isEmpty()) {
      recordings.put(c, msgs);
    }
    return this;
  }

  /** Keep worker metadata only in the manifest's pieces, not as separate records. */
  StoredCutWriter metaInManifestOnly() {
    metaInManifestOnly = true;
    return this;
  }

  long commit(SnapshotStore store) {
    long id = writePieces(store);
    store.commit(manifest(id, SnapshotStatus.SNAPSHOT_STATUS_COMPLETE, true));
    return id;
  }

  long leavePending(SnapshotStore store) {
    return writePieces(store);
  }

  long abort(SnapshotStore store) {
    long id = writePieces(store);
    store.finish(
        manifest(id, SnapshotStatus.SNAPSHOT_STATUS_ABORTED, false).toBuilder()
            .setReason("worker lost")
            .build());
    return id;
  }

  private long writePieces(SnapshotStore store) {
    long id = store.allocateSnapshotId();
    store.createPending(manifest(id, SnapshotStatus.SNAPSHOT_STATUS_PENDING, false));
    for (ChannelId c : channels) {
      // a consistent cut: the receiver has all but what the channel holds
      int inFlight = recordings.getOrDefault(c, List.of()).size();
      workers.get(c.from()).addSent(ChannelCounter.newBuilder().setPeer(c.to()).setCount(10));
      workers
          .get(c.to())
          .addReceived(ChannelCounter.newBuilder().setPeer(c.from()).setCount(10 - inFlight));
    }
    if (!metaInManifestOnly) {
      workers.values().forEach(m -> store.putWorkerMeta(id, m.setSnapshotId(id).build()));
    }
    recordings.forEach((c, msgs) -> store.putChannelRecording(id, c, msgs));
    return id;
  }

  private SnapshotManifest manifest(long id, SnapshotStatus status, boolean withPieces) {
    Topology.Builder topology = Topology.newBuilder();
    for (String w : workers.keySet()) {
      WorkerDecl.Builder decl = WorkerDecl.newBuilder().setWorkerId(w);
      channels.stream().filter(c -> c.from().equals(w)).forEach(c -> decl.addOutgoing(c.to()));
      channels.stream().filter(c -> c.to().equals(w)).forEach(c -> decl.addIncoming(c.from()));
      topology.addWorkers(decl);
    }
    SnapshotManifest.Builder m =
        SnapshotManifest.newBuilder().setSnapshotId(id).setStatus(status).setTopology(topology);
    if (withPieces) {
      workers.forEach(
          (w, meta) ->
              m.addPieces(WorkerPiece.newBuilder().setWorkerId(w).setMeta(meta.setSnapshotId(id))));
    }
    return m.build();
  }
}
