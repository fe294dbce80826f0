package io.cutpoint.server.lifecycle;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.LocalSnapshot;
import java.time.Instant;
import java.util.Objects;

/**
 * One worker's delivered piece of a snapshot as the coordinator keeps it in memory: the counters
 * and the sequence numbers of the recorded messages (for {@link io.cutpoint.cut.CutVerifier}), not
 * the payloads or the state, which went to the store as they arrived.
 *
 * @param meta the worker's counters as uploaded
 * @param cut counters and recorded sequence numbers (payloads left empty)
 * @param stateChunks number of stored state chunks
 * @param channelBytes payload bytes of the recorded messages
 * @param headerAt when the upload's header arrived (the coordinator's clock), or null
 */
public record Piece(
    LocalSnapshotMeta meta,
    LocalSnapshot cut,
    int stateChunks,
    long channelBytes,
    Instant headerAt) {

  public Piece {
    Objects.requireNonNull(meta, "meta");
    Objects.requireNonNull(cut, "cut");
  }

  /** A piece whose header's arrival is not known. */
  public Piece(LocalSnapshotMeta meta, LocalSnapshot cut, int stateChunks, long channelBytes) {
    this(meta, cut, stateChunks, channelBytes, null);
  }

  public String workerId() {
    return meta.getWorkerId();
  }

  public long snapshotId() {
    return meta.getSnapshotId();
  }

  public long inFlightMessages() {
    return cut.inFlightMessages();
  }

  /**
   * The piece as a manifest lists it, with its trace stamps: microseconds from the snapshot's start
   * to its header's arrival (0 when unknown) and to its delivery.
   */
  public WorkerPiece toProto(long headerReceivedMicros, long deliveredMicros) {
    return WorkerPiece.newBuilder()
        .setWorkerId(workerId())
        .setMeta(meta)
        .setStateChunks(stateChunks)
        .setChannelBytes(channelBytes)
        .setInFlightMessages(inFlightMessages())
        .setHeaderReceivedMicros(headerReceivedMicros)
        .setDeliveredMicros(deliveredMicros)
        .build();
  }
}
