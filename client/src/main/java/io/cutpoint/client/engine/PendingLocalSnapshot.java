package io.cutpoint.client.engine;

import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One snapshot this worker has recorded its state for and whose markers have not all arrived yet:
 * the captured state, the counters at the cut, and one {@link RecordedChannel} per incoming channel
 * other than the one whose marker started it.
 */
final class PendingLocalSnapshot {

  final long snapshotId;
  final String firstMarkerFrom;
  private final CapturedState state;
  private final SortedMap<String, Long> sentAtCut;
  private final SortedMap<String, Long> receivedAtCut;
  private final SortedMap<String, RecordedChannel> recordings = new TreeMap<>();
  private final long beganNanos;
  private final long startNanos;
  private final SortedMap<String, Long> closedNanos = new TreeMap<>();
  private int openRecordings;
  private long recordedBytes;

  PendingLocalSnapshot(
      long snapshotId,
      String firstMarkerFrom,
      CapturedState state,
      OutgoingChannel[] outgoing,
      IncomingChannel[] incoming,
      long beganNanos,
      long startNanos) {
    this.snapshotId = snapshotId;
    this.beganNanos = beganNanos;
    this.firstMarkerFrom = firstMarkerFrom;
    this.state = state;
    this.startNanos = startNanos;
    this.sentAtCut = new TreeMap<>();
    for (OutgoingChannel out : outgoing) {
      sentAtCut.put(out.peer, out.sent);
    }
    this.receivedAtCut = new TreeMap<>();
    for (IncomingChannel in : incoming) {
      receivedAtCut.put(in.peer, in.received);
      if (!in.peer.equals(firstMarkerFrom)) {
        RecordedChannel rec = new RecordedChannel(this, in);
        recordings.put(in.peer, rec);
        in.open.add(rec);
        openRecordings++;
      }
    }
  }

  /**
   * The marker of this snapshot arrived from {@code peer} at {@code nowNanos}; false when it was
   * already closed.
   */
  boolean closeRecording(String peer, long nowNanos) {
    RecordedChannel rec = recordings.get(peer);
    if (rec == null || !rec.isOpen()) {
      return false;
    }
    rec.close();
    closedNanos.put(peer, nowNanos);
    openRecordings--;
    return true;
  }

  /** What an early copy of a marker did to a recording. */
  enum EarlyClose {
    /** The recording was closed already, or had its boundary from another copy. */
    IGNORED,
    /** Messages are still due: the recording closes after its boundary. */
    BOUNDED,
    /** Nothing more was due: the recording is closed. */
    CLOSED
  }

  /**
   * An early copy of this snapshot's marker arrived from {@code peer}, whose sender had sent {@code
   * boundary} data messages before it, with {@code atHand}: the messages after the channel's count
   * that arrived but were not handed over yet (checked contiguous by the engine). Records those up
   * to the boundary; closes the recording when that is all, else it closes after the boundary.
   */
  EarlyClose closeAt(String peer, long boundary, List<InTransitMessage> atHand, long nowNanos) {
    RecordedChannel rec = recordings.get(peer);
    if (rec == null || !rec.isOpen() || rec.boundary >= 0) {
      return EarlyClose.IGNORED;
    }
    for (InTransitMessage m : atHand) {
      if (m.seq() > boundary) {
        break;
      }
      rec.add(m);
      addRecordedBytes(m.payload().length);
    }
    if (rec.recordedThrough >= boundary) {
      closeRecording(peer, nowNanos);
      return EarlyClose.CLOSED;
    }
    rec.boundary = boundary;
    return EarlyClose.BOUNDED;
  }

  boolean allMarkersReceived() {
    return openRecordings == 0;
  }

  long recordedBytes() {
    return recordedBytes;
  }

  /** Counts {@code bytes} more recorded payload; returns the new total. */
  long addRecordedBytes(int bytes) {
    recordedBytes += bytes;
    return recordedBytes;
  }

  /** Detaches every open recording from its channel. */
  void dropRecordings() {
    for (RecordedChannel rec : recordings.values()) {
      rec.close();
    }
    openRecordings = 0;
  }

  CompletedLocalSnapshot complete(String workerId, long nowNanos) {
    SortedMap<String, List<InTransitMessage>> channels = new TreeMap<>();
    for (String peer : receivedAtCut.keySet()) {
      RecordedChannel rec = recordings.get(peer);
      channels.put(peer, rec == null ? List.of() : rec.messages());
    }
    LocalSnapshot cut =
        new LocalSnapshot(
            snapshotId, workerId, sentAtCut, receivedAtCut, channels, firstMarkerFrom);
    return new CompletedLocalSnapshot(
        cut,
        state,
        nowNanos - startNanos,
        new LocalTimeline(beganNanos, startNanos, closedNanos, nowNanos));
  }
}
