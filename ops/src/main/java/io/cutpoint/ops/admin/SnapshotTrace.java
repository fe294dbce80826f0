package io.cutpoint.ops.admin;

import io.cutpoint.api.v1.ChannelClosed;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.api.v1.WorkerTimeline;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a snapshot's time went, on one clock: the coordinator's, in milliseconds from the start
 * commands. The coordinator stamps when each piece's header arrived and when the whole piece was
 * delivered to its loop; each worker reports its own steps (capture began, captured, each channel
 * closed, complete, and for a state cut into content chunks off its loop: cutting began, cut,
 * chunks found) as times before it sent that header, so they are placed by the header's arrival
 * (the header's transit, a fraction of a millisecond on one network, counts as the worker's
 * upload). Pure: built from a manifest.
 *
 * @param workers one line per worker whose piece is in the manifest, in the manifest's order
 * @param endMillis from the start to the manifest's end: the verified commit handed to the store in
 *     a stored manifest, the commit done in the one a trigger's caller gets
 * @param commitMillis of that end, after the last piece: verification (and the commit)
 */
public record SnapshotTrace(List<Worker> workers, double endMillis, double commitMillis) {

  /**
   * One worker's steps (ms from the start; NaN where the worker sent no timeline).
   *
   * @param closed by sender, when that channel's marker closed its recording
   * @param chunks between its local snapshot and its upload, when its state went up as content
   *     chunks cut off the worker's loop; else null
   */
  public record Worker(
      String id,
      double began,
      double captured,
      Map<String, Double> closed,
      double completed,
      Chunking chunks,
      double headerReceived,
      double delivered) {}

  /**
   * When a worker's state was cut into content chunks and its missing chunks became known (ms from
   * the start).
   *
   * @param began a chunking thread began cutting and hashing the state
   * @param chunked the state was cut and hashed
   * @param found the coordinator's answer to {@code FindChunks} arrived
   */
  public record Chunking(double began, double chunked, double found) {}

  /** The trace of {@code m}, if its pieces carry one (pieces stored before the trace have none). */
  public static Optional<SnapshotTrace> of(SnapshotManifest m) {
    List<Worker> workers = new ArrayList<>();
    for (WorkerPiece p : m.getPiecesList()) {
      if (p.getDeliveredMicros() == 0) {
        return Optional.empty();
      }
      workers.add(worker(p));
    }
    if (workers.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new SnapshotTrace(
            workers,
            m.getTimings().getTotalMicros() / 1000.0,
            m.getTimings().getCommitMicros() / 1000.0));
  }

  private static Worker worker(WorkerPiece p) {
    double anchor = p.getHeaderReceivedMicros() / 1000.0;
    double delivered = p.getDeliveredMicros() / 1000.0;
    if (!p.getMeta().hasTimeline() || p.getHeaderReceivedMicros() == 0) {
      return new Worker(
          p.getWorkerId(),
          Double.NaN,
          Double.NaN,
          Map.of(),
          Double.NaN,
          null,
          Double.NaN,
          delivered);
    }
    WorkerTimeline t = p.getMeta().getTimeline();
    Map<String, Double> closed = new LinkedHashMap<>();
    for (ChannelClosed c : t.getClosedList()) {
      closed.put(c.getFrom(), anchor - c.getMicros() / 1000.0);
    }
    return new Worker(
        p.getWorkerId(),
        anchor - t.getBeganMicros() / 1000.0,
        anchor - t.getCapturedMicros() / 1000.0,
        closed,
        anchor - t.getCompletedMicros() / 1000.0,
        t.hasChunksFoundMicros()
            ? new Chunking(
                anchor - t.getChunkingBeganMicros() / 1000.0,
                anchor - t.getChunkedMicros() / 1000.0,
                anchor - t.getChunksFoundMicros() / 1000.0)
            : null,
        anchor,
        delivered);
  }

  /** The worker whose piece was delivered last: the one the verification waited for. */
  public Worker last() {
    return workers.stream().max(Comparator.comparingDouble(Worker::delivered)).orElseThrow();
  }

  /**
   * The critical path through {@link #last()}, step by step, each in ms: to its capture, the
   * capture, its markers, to its upload, the upload, then verification and commit. The steps add up
   * to {@link #endMillis()}; a step the worker reported no time for is folded into the next one.
   */
  public Map<String, Double> criticalPath() {
    Worker w = last();
    Map<String, Double> path = new LinkedHashMap<>();
    double at = 0;
    at = step(path, "start to capture", at, w.began());
    at = step(path, "state capture", at, w.captured());
    at = step(path, "markers", at, w.completed());
    at = step(path, "to upload", at, w.headerReceived());
    at = step(path, "upload", at, w.delivered());
    path.put("verify and commit", Math.max(0, endMillis - at));
    return path;
  }

  /**
   * The critical path's "to upload" step, cut where {@link #last()} reports its chunking: waiting
   * for a chunking thread (and the upload queue), cutting and hashing, the {@code FindChunks} round
   * trip, and on to the header. Empty when that worker reported none (a small state, chunks off, a
   * worker from before these steps). The steps add up to "to upload". A state is cut from its
   * capture, so the cutting may begin before the local snapshot completes: then the wait is 0 and
   * "cut and hash" is what was left of the cutting when it completed (0 if it was done).
   */
  public Map<String, Double> toUpload() {
    Worker w = last();
    if (w.chunks() == null) {
      return Map.of();
    }
    Map<String, Double> path = criticalPath();
    double at = path.get("start to capture") + path.get("state capture") + path.get("markers");
    Map<String, Double> steps = new LinkedHashMap<>();
    at = step(steps, "wait for chunking", at, w.chunks().began());
    at = step(steps, "cut and hash", at, w.chunks().chunked());
    at = step(steps, "find chunks", at, w.chunks().found());
    step(steps, "to the header", at, w.headerReceived());
    return steps;
  }

  private static double step(Map<String, Double> path, String name, double from, double to) {
    if (Double.isNaN(to)) {
      path.put(name, 0.0);
      return from;
    }
    double clamped = Math.max(from, to);
    path.put(name, clamped - from);
    return clamped;
  }
}
