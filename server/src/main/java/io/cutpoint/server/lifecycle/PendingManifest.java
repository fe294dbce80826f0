package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerPiece;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;

/**
 * A pending snapshot as readers on any thread see it after one event of the lifecycle: what an
 * upload checks ({@link #epoch}, {@link #covers}, {@link #delivered}) in constant time, and the
 * manifest, built when first asked for.
 *
 * <p>The lifecycle publishes one of these per pending snapshot after every event, so publishing
 * must not cost what the manifest does: building it copies every piece listed so far, and a
 * snapshot of n workers has n events with a piece, so building it on each would cost O(n^2) per
 * snapshot (about half of the coordinator's CPU per snapshot of a 1,000-worker ring). A published
 * one shares its snapshot's arrays: the pieces in order of arrival, of which it reads the first
 * {@code count}, which the lifecycle never changes once published, and the arrival index of each
 * worker's piece.
 */
public final class PendingManifest {

  private static final Comparator<WorkerPiece> BY_WORKER =
      Comparator.comparing(WorkerPiece::getWorkerId);

  private final SnapshotManifest withoutPieces;
  private final Map<String, ?> covered;
  private final WorkerPiece[] arrived;
  private final int count;
  private final Map<String, Integer> arrival;
  private volatile SnapshotManifest manifest;

  /**
   * @param withoutPieces the manifest with every field but its pieces
   * @param covered the covered workers (only the keys are read)
   * @param arrived the pieces in order of arrival; {@code arrived[0..count)} never change
   * @param arrival each piece's index in {@code arrived}, safe to read from any thread
   */
  PendingManifest(
      SnapshotManifest withoutPieces,
      Map<String, ?> covered,
      WorkerPiece[] arrived,
      int count,
      Map<String, Integer> arrival) {
    this.withoutPieces = withoutPieces;
    this.covered = covered;
    this.arrived = arrived;
    this.count = count;
    this.arrival = arrival;
  }

  public long snapshotId() {
    return withoutPieces.getSnapshotId();
  }

  public long epoch() {
    return withoutPieces.getEpoch();
  }

  /** Whether the snapshot covers {@code workerId}. */
  public boolean covers(String workerId) {
    return covered.containsKey(workerId);
  }

  /** Whether {@code workerId}'s piece was in as of this event. */
  public boolean delivered(String workerId) {
    Integer i = arrival.get(workerId);
    return i != null && i < count;
  }

  /** How many pieces were in as of this event. */
  public int pieceCount() {
    return count;
  }

  /** The manifest as of this event, its pieces in the order of their workers' ids. */
  public SnapshotManifest manifest() {
    SnapshotManifest m = manifest;
    if (m == null) {
      WorkerPiece[] pieces = Arrays.copyOf(arrived, count);
      Arrays.sort(pieces, BY_WORKER);
      m = withoutPieces.toBuilder().addAllPieces(Arrays.asList(pieces)).build();
      manifest = m; // two threads may both build it: the same manifest
    }
    return m;
  }
}
