package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.server.membership.ClusterTopology;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A snapshot in flight: the topology it covers, its initiators and the pieces delivered so far.
 * Mutated only by {@link SnapshotLifecycle}, on the coordinator loop; a {@link CompletedSnapshot}
 * is what a committed one becomes.
 */
public final class PendingSnapshot {

  private final long id;
  private final long epoch;
  private final SnapshotTrigger trigger;
  private final Instant startedAt;
  private final SortedSet<String> initiators;
  private final ClusterTopology topology;
  private final SortedSet<ChannelId> channels;
  private final SortedMap<String, Piece> pieces = new TreeMap<>();

  /**
   * The pieces as the manifest lists them, each built once, in order of arrival: {@link
   * PendingManifest}s published earlier read a prefix of this array (a full one is replaced by a
   * larger copy, never changed below its count).
   */
  private WorkerPiece[] arrived = new WorkerPiece[4];

  private int count;

  /** Each piece's index in {@link #arrived}; read by published {@link PendingManifest}s. */
  private final Map<String, Integer> arrival = new ConcurrentHashMap<>();

  private final CompletableFuture<SnapshotManifest> outcome = new CompletableFuture<>();

  /** Completes once the store has answered the write of the pending manifest. */
  private final CompletableFuture<Void> written = new CompletableFuture<>();

  private Instant firstUpload;
  private Instant lastUpload;
  private Scheduler.Cancellable timeout = () -> {};

  /** The manifest without its pieces, built when first asked for; it never changes. */
  private SnapshotManifest withoutPieces;

  /** What readers see as of the last piece added, made when first asked for after it. */
  private PendingManifest published;

  /** Verified, its commit handed to the store: nothing ends it but the commit's result. */
  private boolean committing;

  PendingSnapshot(
      long id,
      long epoch,
      SnapshotTrigger trigger,
      Instant startedAt,
      SortedSet<String> initiators,
      ClusterTopology topology) {
    this.id = id;
    this.epoch = epoch;
    this.trigger = trigger;
    this.startedAt = startedAt;
    this.initiators = Collections.unmodifiableSortedSet(new TreeSet<>(initiators));
    this.topology = topology;
    this.channels = topology.channels();
  }

  public long id() {
    return id;
  }

  public long epoch() {
    return epoch;
  }

  public SortedSet<String> workers() {
    return topology.workerIds();
  }

  public SortedSet<ChannelId> channels() {
    return channels;
  }

  public SortedSet<String> initiators() {
    return initiators;
  }

  public Instant startedAt() {
    return startedAt;
  }

  boolean covers(String workerId) {
    return topology.workers().containsKey(workerId);
  }

  boolean hasPiece(String workerId) {
    return pieces.containsKey(workerId);
  }

  /**
   * Adds a worker's piece, delivered {@code at}; the manifest lists it with when its header arrived
   * and when it was delivered, from the start (the snapshot's trace).
   */
  void add(Piece piece, Instant at) {
    if (pieces.putIfAbsent(piece.workerId(), piece) != null) {
      throw new IllegalStateException(
          "snapshot " + id + " has worker " + piece.workerId() + "'s piece already");
    }
    long header = piece.headerAt() == null ? 0 : sinceStart(piece.headerAt());
    if (count == arrived.length) {
      arrived = Arrays.copyOf(arrived, count * 2);
    }
    arrived[count] = piece.toProto(header, sinceStart(at));
    arrival.put(piece.workerId(), count);
    count++;
    published = null;
    if (firstUpload == null) {
      firstUpload = at;
    }
    lastUpload = at;
  }

  private long sinceStart(Instant at) {
    return Math.max(0, Duration.between(startedAt, at).toNanos() / 1_000);
  }

  boolean allPiecesIn() {
    return pieces.size() >= topology.workers().size()
        && pieces.keySet().containsAll(topology.workers().keySet());
  }

  SortedMap<String, Piece> pieces() {
    return Collections.unmodifiableSortedMap(pieces);
  }

  CompletableFuture<SnapshotManifest> outcome() {
    return outcome;
  }

  CompletableFuture<Void> written() {
    return written;
  }

  boolean committing() {
    return committing;
  }

  void committing(boolean c) {
    committing = c;
  }

  void timeout(Scheduler.Cancellable task) {
    this.timeout = task;
  }

  void cancelTimeout() {
    timeout.cancel();
  }

  /** The cut assembled from the pieces delivered so far. */
  Cut cut() {
    return Cut.of(
        id, topology.workerIds(), channels, pieces.values().stream().map(Piece::cut).toList());
  }

  /** Time from start to the last worker's piece delivered (its local snapshot recorded). */
  Duration markerPropagation() {
    return lastUpload == null ? Duration.ZERO : Duration.between(startedAt, lastUpload);
  }

  /** Time from the first piece delivered to {@code end}. */
  Duration upload(Instant end) {
    return firstUpload == null ? Duration.ZERO : Duration.between(firstUpload, end);
  }

  /** The manifest as stored while pending: every piece delivered so far. */
  public SnapshotManifest manifest() {
    return published().manifest();
  }

  /** What readers see as of the last piece added (the same object until the next one). */
  PendingManifest published() {
    if (published == null) {
      published = new PendingManifest(withoutPieces(), topology.workers(), arrived, count, arrival);
    }
    return published;
  }

  private SnapshotManifest withoutPieces() {
    if (withoutPieces == null) {
      withoutPieces =
          SnapshotManifest.newBuilder()
              .setSnapshotId(id)
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
              .setEpoch(epoch)
              .setStartedAtUnixMs(startedAt.toEpochMilli())
              .addAllInitiators(initiators)
              .setTopology(
                  Topology.newBuilder()
                      .addAllWorkers(
                          topology.workers().values().stream().map(d -> d.toProto()).toList()))
              .setTrigger(trigger)
              .build();
    }
    return withoutPieces;
  }
}
