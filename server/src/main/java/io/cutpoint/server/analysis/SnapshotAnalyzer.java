package io.cutpoint.server.analysis;

import io.cutpoint.api.v1.AnalyzeResponse;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.SnapshotStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Analyzes a stored snapshot: reads its manifest, every worker's declarations and the recording of
 * every channel that holds messages from the {@link SnapshotStore}, builds a {@link CutModel} and
 * runs {@link CutAnalysis}. The admin API's {@code Analyze} calls {@link #analyze(long)}.
 *
 * <p>Only COMPLETE snapshots are analyzed: they are the cuts that passed verification, so they are
 * consistent and the stable properties found in them are real. Thread-safe (it keeps no state).
 */
public final class SnapshotAnalyzer {

  private final SnapshotStore store;

  public SnapshotAnalyzer(SnapshotStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * Analyzes a complete snapshot.
   *
   * @throws NoSuchElementException when no snapshot has this id
   * @throws IllegalStateException when the snapshot is not COMPLETE
   * @throws CorruptionException when a stored piece fails its checksum or is missing
   */
  public AnalyzeResponse analyze(long snapshotId) {
    return AnalysisReports.toResponse(snapshotId, analyzeCut(snapshotId));
  }

  /** Same as {@link #analyze(long)}, as the domain result. */
  public CutAnalysis analyzeCut(long snapshotId) {
    return CutAnalysis.of(readCut(snapshotId));
  }

  /** Reads the model of a complete snapshot; same exceptions as {@link #analyze(long)}. */
  public CutModel readCut(long snapshotId) {
    SnapshotManifest manifest =
        store
            .manifest(snapshotId)
            .orElseThrow(
                () -> new NoSuchElementException("snapshot " + snapshotId + " does not exist"));
    if (manifest.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      throw new IllegalStateException(
          "snapshot "
              + snapshotId
              + " is "
              + statusName(manifest.getStatus())
              + ", not COMPLETE: only a complete, verified snapshot is a consistent cut");
    }

    Map<String, LocalSnapshotMeta> pieceMeta = new TreeMap<>();
    for (WorkerPiece piece : manifest.getPiecesList()) {
      if (piece.hasMeta()) {
        pieceMeta.put(piece.getWorkerId(), piece.getMeta());
      }
    }
    SortedSet<String> workers = new TreeSet<>(pieceMeta.keySet());
    manifest.getPiecesList().forEach(p -> workers.add(p.getWorkerId()));
    SortedSet<ChannelId> channels = new TreeSet<>();
    for (WorkerDecl decl : manifest.getTopology().getWorkersList()) {
      workers.add(decl.getWorkerId());
      decl.getOutgoingList().forEach(to -> channels.add(ChannelId.of(decl.getWorkerId(), to)));
      decl.getIncomingList().forEach(from -> channels.add(ChannelId.of(from, decl.getWorkerId())));
    }

    CutModel.Builder cut = CutModel.builder();
    Map<ChannelId, Long> sent = new HashMap<>();
    Map<ChannelId, Long> received = new HashMap<>();
    for (String worker : workers) {
      LocalSnapshotMeta meta = workerMeta(snapshotId, worker, pieceMeta);
      meta.getSentList().forEach(c -> sent.put(ChannelId.of(worker, c.getPeer()), c.getCount()));
      meta.getReceivedList()
          .forEach(c -> received.put(ChannelId.of(c.getPeer(), worker), c.getCount()));
      cut.worker(toWorker(worker, meta));
    }
    channels.addAll(sent.keySet());
    channels.addAll(received.keySet());
    // The cut was verified: each channel holds sent - received messages, so one whose counts are
    // equal is empty and needs no read (in an idle cluster, none does).
    List<ChannelId> toRead = new ArrayList<>();
    for (ChannelId channel : channels) {
      Long s = sent.get(channel);
      if (s != null && s.equals(received.get(channel))) {
        cut.channel(new CutModel.Channel(channel, 0, 0));
      } else {
        toRead.add(channel);
      }
    }
    Map<ChannelId, List<InTransitMessage>> read =
        toRead.isEmpty() ? Map.of() : store.readChannels(snapshotId, toRead);
    for (Map.Entry<ChannelId, List<InTransitMessage>> e : read.entrySet()) {
      ChannelId channel = e.getKey();
      List<InTransitMessage> messages = e.getValue();
      long bytes = 0;
      for (InTransitMessage m : messages) {
        bytes += m.payload().length;
      }
      cut.channel(new CutModel.Channel(channel, messages.size(), bytes));
    }
    return cut.build();
  }

  private LocalSnapshotMeta workerMeta(
      long snapshotId, String worker, Map<String, LocalSnapshotMeta> pieceMeta) {
    Optional<LocalSnapshotMeta> stored = store.workerMeta(snapshotId, worker);
    LocalSnapshotMeta meta = stored.orElse(pieceMeta.get(worker));
    if (meta == null) {
      throw new CorruptionException(
          "snapshot " + snapshotId + " is complete but has no metadata for worker " + worker);
    }
    if (!meta.getWorkerId().isEmpty() && !meta.getWorkerId().equals(worker)) {
      throw new CorruptionException(
          "snapshot "
              + snapshotId
              + ": metadata stored for worker "
              + worker
              + " names worker "
              + meta.getWorkerId());
    }
    if (meta.getStateBytes() < 0) {
      throw new CorruptionException(
          "snapshot " + snapshotId + ": worker " + worker + " claims an impossible state size");
    }
    return meta;
  }

  static CutModel.Worker toWorker(String worker, LocalSnapshotMeta meta) {
    List<CutModel.Wait> waits = new ArrayList<>();
    meta.getWaitingForList()
        .forEach(w -> waits.add(new CutModel.Wait(w.getPeer(), w.getResource())));
    return new CutModel.Worker(worker, activity(meta), waits, meta.getStateBytes());
  }

  private static CutModel.Activity activity(LocalSnapshotMeta meta) {
    switch (meta.getActivity()) {
      case ACTIVITY_ACTIVE:
        return CutModel.Activity.ACTIVE;
      case ACTIVITY_PASSIVE:
        return CutModel.Activity.PASSIVE;
      default:
        return CutModel.Activity.UNSPECIFIED;
    }
  }

  private static String statusName(SnapshotStatus status) {
    String name = status.name();
    return name.startsWith("SNAPSHOT_STATUS_") ? name.substring("SNAPSHOT_STATUS_".length()) : name;
  }
}
