package io.cutpoint.client.engine;

import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.RecentIds;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One worker's Chandy-Lamport logic, free of any transport: the caller tells it what happened (the
 * application sends, a data message or a marker arrived, a snapshot starts) and it answers through
 * {@link EngineOutput} (send these markers, deliver this message, this local snapshot is complete
 * or failed).
 *
 * <p>It numbers data messages per channel (1-based, DESIGN section 2), records its local state
 * through {@link StateCapture} at the instant a snapshot reaches it, records every other incoming
 * channel until that channel's marker arrives, and then reports a {@link CompletedLocalSnapshot}.
 * Several snapshots may be in flight at once; a snapshot may have several initiators.
 *
 * <p><b>Threading.</b> Not thread-safe, by design: the caller serialises every call (one event loop
 * or one lock per worker) and runs the application's handlers under the same serialisation. That is
 * what makes a state capture atomic with respect to sends and receives. Output callbacks run
 * synchronously inside the call that caused them; {@link EngineOutput#deliver} may call {@link
 * #send}.
 *
 * <p><b>Transport contract.</b> Channels are reliable and FIFO without gaps; the caller puts a
 * marker handed to {@link EngineOutput#sendMarker} on its channel before any data message sent
 * later. A data message whose sequence number is not the next one, or a marker whose sender count
 * disagrees with what arrived before it, throws {@link ProtocolViolationException} (an {@link
 * IllegalStateException}) and leaves the engine unchanged. A transport may also send an early copy
 * of each marker ahead of the data queued before it ({@link #onEarlyMarker}), so that a snapshot
 * reaches a busy receiver without waiting for that data. A message or marker on a channel that was
 * not declared throws {@link IllegalArgumentException}.
 *
 * <p>The engine does no I/O. {@link #send} and {@link #onData} allocate nothing while no snapshot
 * records the channel concerned (one {@link InTransitMessage} per message while one does).
 */
public final class SnapshotEngine {

  private final String workerId;
  private final OutgoingChannel[] outgoing;
  private final IncomingChannel[] incoming;
  private final Map<String, OutgoingChannel> outByPeer = new HashMap<>();
  private final Map<String, IncomingChannel> inByPeer = new HashMap<>();
  private final StateCapture capture;
  private final EngineOutput output;
  private final EngineOptions options;
  private final SortedMap<Long, PendingLocalSnapshot> pending = new TreeMap<>();
  private final RecentIds recent;

  /**
   * From the newest coordinator's welcome: every snapshot below {@code floor} (unsigned) but those
   * in {@code floorPending} is over. 0: no welcome said.
   */
  private long floor;

  private Set<Long> floorPending = Set.of();

  private long ignoredMarkers;

  /**
   * @param workerId this worker's id
   * @param outgoingPeers the peers this worker sends to (channels {@code workerId -> peer})
   * @param incomingPeers the peers this worker receives from (channels {@code peer -> workerId})
   * @param capture called to capture the application's state when a snapshot records this worker
   * @param output where the engine's instructions go
   * @param options limits and clock
   * @throws IllegalArgumentException on a null or duplicate peer
   */
  public SnapshotEngine(
      String workerId,
      Collection<String> outgoingPeers,
      Collection<String> incomingPeers,
      StateCapture capture,
      EngineOutput output,
      EngineOptions options) {
    this.workerId = Objects.requireNonNull(workerId, "workerId");
    this.capture = Objects.requireNonNull(capture, "capture");
    this.output = Objects.requireNonNull(output, "output");
    this.options = Objects.requireNonNull(options, "options");
    SortedSet<String> outs = peers(outgoingPeers, "outgoing");
    SortedSet<String> ins = peers(incomingPeers, "incoming");
    this.outgoing = new OutgoingChannel[outs.size()];
    int i = 0;
    for (String peer : outs) {
      outgoing[i] = new OutgoingChannel(peer);
      outByPeer.put(peer, outgoing[i++]);
    }
    this.incoming = new IncomingChannel[ins.size()];
    i = 0;
    for (String peer : ins) {
      incoming[i] = new IncomingChannel(peer);
      inByPeer.put(peer, incoming[i++]);
    }
    this.recent = new RecentIds(options.recentSnapshotMemory());
  }

  private static SortedSet<String> peers(Collection<String> peers, String what) {
    Objects.requireNonNull(peers, what + "Peers");
    SortedSet<String> sorted = new TreeSet<>();
    for (String peer : peers) {
      if (peer == null || peer.isEmpty()) {
        throw new IllegalArgumentException(what + " peers must be non-empty ids, got " + peers);
      }
      if (!sorted.add(peer)) {
        throw new IllegalArgumentException(what + " peer " + peer + " is declared twice");
      }
    }
    return sorted;
  }

  // ---------------------------------------------------------------- data plane (hot paths)

  /**
   * The application sends a data message to {@code to}: numbers it and returns its sequence number
   * (1-based per channel). The caller transmits {@code (seq, payload)} on that channel.
   *
   * @throws IllegalArgumentException when {@code to} is not a declared outgoing peer
   */
  public long send(String to, byte[] payload) {
    OutgoingChannel out = outByPeer.get(to);
    if (out == null) {
      throw undeclared("send to", to, "outgoing");
    }
    Objects.requireNonNull(payload, "payload");
    return ++out.sent;
  }

  /**
   * Data message {@code seq} arrived from {@code from}: records it for every snapshot recording
   * that channel, then calls {@link EngineOutput#deliver}. A recorded payload is kept by reference:
   * do not modify the array afterwards.
   *
   * @throws IllegalArgumentException when {@code from} is not a declared incoming peer
   * @throws ProtocolViolationException when {@code seq} is not exactly one more than the last
   */
  public void onData(String from, long seq, byte[] payload) {
    IncomingChannel in = inByPeer.get(from);
    if (in == null) {
      throw undeclared("data message from", from, "incoming");
    }
    if (seq != in.received + 1) {
      throw new ProtocolViolationException(
          workerId
              + ": data message "
              + seq
              + " on channel "
              + from
              + "->"
              + workerId
              + " where "
              + (in.received + 1)
              + " was expected (the transport must be FIFO without gaps or duplicates)");
    }
    Objects.requireNonNull(payload, "payload");
    in.received = seq;
    List<PendingLocalSnapshot> reachedBoundary =
        in.open.isEmpty() ? null : record(in, seq, payload);
    try {
      output.deliver(from, seq, payload);
    } finally {
      if (reachedBoundary != null) {
        closeAtBoundary(in, reachedBoundary);
      }
    }
  }

  /**
   * Records message {@code seq} for every snapshot recording {@code in}; returns the snapshots
   * whose recording of it ends with that message (its early marker's boundary), or null.
   */
  private List<PendingLocalSnapshot> record(IncomingChannel in, long seq, byte[] payload) {
    InTransitMessage message = new InTransitMessage(seq, payload);
    List<PendingLocalSnapshot> overLimit = null;
    List<PendingLocalSnapshot> reachedBoundary = null;
    for (RecordedChannel rec : in.open) {
      if (seq <= rec.recordedThrough) {
        continue; // recorded already, handed over by an early marker
      }
      rec.add(message);
      if (rec.owner.addRecordedBytes(payload.length) > options.maxRecordedBytesPerSnapshot()) {
        if (overLimit == null) {
          overLimit = new ArrayList<>(1);
        }
        overLimit.add(rec.owner);
      } else if (rec.boundary == seq) {
        if (reachedBoundary == null) {
          reachedBoundary = new ArrayList<>(1);
        }
        reachedBoundary.add(rec.owner);
      }
    }
    if (overLimit != null) {
      for (PendingLocalSnapshot p : overLimit) {
        fail(p, overLimit());
      }
    }
    return reachedBoundary;
  }

  private String overLimit() {
    return "recorded more than "
        + options.maxRecordedBytesPerSnapshot()
        + " bytes of in-flight messages on "
        + workerId
        + "'s incoming channels";
  }

  /** Once the message was delivered: closes the recordings that ended with it. */
  private void closeAtBoundary(IncomingChannel in, List<PendingLocalSnapshot> reachedBoundary) {
    long now = options.nanoClock().getAsLong();
    for (PendingLocalSnapshot p : reachedBoundary) {
      if (pending.get(p.snapshotId) == p
          && p.closeRecording(in.peer, now)
          && p.allMarkersReceived()) {
        complete(p);
      }
    }
  }

  // ---------------------------------------------------------------- markers and snapshots

  /**
   * A marker of {@code snapshotId} arrived from {@code from}, carrying the number of data messages
   * its sender had sent on this channel before it (a negative count means unknown and skips the
   * check). The first marker of a snapshot records this worker (state, counters, markers out); a
   * later one closes that channel's recording; markers on an already closed channel or of a
   * completed, failed or aborted snapshot are ignored.
   *
   * @throws IllegalArgumentException when {@code from} is not a declared incoming peer
   * @throws ProtocolViolationException when {@code senderSentCount} differs from the number of data
   *     messages received on this channel (FIFO without gaps makes them equal)
   */
  public void onMarker(String from, long snapshotId, long senderSentCount) {
    IncomingChannel in = inByPeer.get(from);
    if (in == null) {
      throw undeclared("marker of snapshot " + snapshotId + " from", from, "incoming");
    }
    if (senderSentCount >= 0 && senderSentCount != in.received) {
      throw new ProtocolViolationException(
          workerId
              + ": marker of snapshot "
              + snapshotId
              + " on channel "
              + from
              + "->"
              + workerId
              + " says "
              + senderSentCount
              + " data messages were sent before it, but "
              + in.received
              + " arrived"
              + (senderSentCount < in.received
                  ? " (more arrived than were sent)"
                  : " (messages were lost or the marker overtook them)"));
    }
    PendingLocalSnapshot p = pending.get(snapshotId);
    if (p != null) {
      if (!p.closeRecording(from, options.nanoClock().getAsLong())) {
        ignoredMarkers++; // this channel is already closed for this snapshot
      } else if (p.allMarkersReceived()) {
        complete(p);
      }
      return;
    }
    if (over(snapshotId)) {
      ignoredMarkers++; // late marker of a snapshot this worker is done with
      return;
    }
    recordState(snapshotId, from);
  }

  /**
   * An early copy of a marker of {@code snapshotId} arrived from {@code from}: a copy that the
   * transport may have sent ahead of data messages queued before it on the channel, but never
   * behind one sent after it. Same as {@link #onEarlyMarker(String, long, long, List)} with no
   * message at hand.
   */
  public void onEarlyMarker(String from, long snapshotId, long senderSentCount) {
    onEarlyMarker(from, snapshotId, senderSentCount, List.of());
  }

  /**
   * An early copy of a marker of {@code snapshotId} arrived from {@code from}, or the marker itself
   * was read ahead of data that arrived before it: in both cases the marker may be ahead of data
   * messages sent before it on the channel, never behind one sent after it. The caller still hands
   * the marker itself, in channel order, to {@link #onMarker}; whichever comes first counts, the
   * other is ignored.
   *
   * <p>{@code senderSentCount}, the number of data messages sent on the channel before the marker,
   * is the channel's boundary. The messages up to it that this worker has not handed to the
   * application yet are the channel's state. {@code atHand} are those of them that arrived already
   * (read ahead, not yet passed to {@link #onData}): the messages numbered from {@link #received} +
   * 1 on, in order, possibly beyond the boundary (those are not recorded). They are recorded now;
   * the rest is recorded as it arrives, and the channel closes with the boundary's message. With
   * every message up to the boundary at hand, the channel closes at once: a snapshot then does not
   * wait for the application to work through its backlog.
   *
   * <p>The first marker of a snapshot records this worker as {@link #onMarker} does. If data was
   * still due on its channel, the piece names no first-marker channel ({@link
   * io.cutpoint.cut.LocalSnapshot#firstMarkerFrom()} is null, as for an initiator), since that
   * channel's state is not empty.
   *
   * <p>A copy whose count is below what arrived is late: the in-order marker, which travels ahead
   * of every message sent after it, was handled already. It is ignored, like a duplicate.
   *
   * @throws IllegalArgumentException when {@code from} is not a declared incoming peer, or the
   *     count is negative (an early marker without its boundary cannot be placed)
   * @throws ProtocolViolationException when {@code atHand} is not numbered from {@link #received} +
   *     1 on without gaps (nothing changes)
   */
  public void onEarlyMarker(
      String from, long snapshotId, long senderSentCount, List<InTransitMessage> atHand) {
    IncomingChannel in = inByPeer.get(from);
    if (in == null) {
      throw undeclared("early marker of snapshot " + snapshotId + " from", from, "incoming");
    }
    if (senderSentCount < 0) {
      throw new IllegalArgumentException(
          workerId
              + ": an early marker of snapshot "
              + snapshotId
              + " from "
              + from
              + " must carry its sender's count, got "
              + senderSentCount);
    }
    long expected = in.received + 1;
    for (InTransitMessage m : atHand) {
      if (m.seq() != expected++) {
        throw new ProtocolViolationException(
            workerId
                + ": the messages at hand with an early marker of snapshot "
                + snapshotId
                + " on channel "
                + from
                + "->"
                + workerId
                + " hold "
                + m.seq()
                + " where "
                + (expected - 1)
                + " was expected");
      }
    }
    if (senderSentCount < in.received) {
      ignoredMarkers++; // the marker itself came first
      return;
    }
    PendingLocalSnapshot p = pending.get(snapshotId);
    if (p == null && over(snapshotId)) {
      ignoredMarkers++;
      return;
    }
    if (p == null) {
      p = recordState(snapshotId, senderSentCount == in.received ? from : null);
      if (p == null || senderSentCount == in.received) {
        return;
      }
    }
    PendingLocalSnapshot.EarlyClose outcome =
        p.closeAt(from, senderSentCount, atHand, options.nanoClock().getAsLong());
    if (outcome == PendingLocalSnapshot.EarlyClose.IGNORED) {
      ignoredMarkers++;
    } else if (p.recordedBytes() > options.maxRecordedBytesPerSnapshot()) {
      fail(p, overLimit());
    } else if (outcome == PendingLocalSnapshot.EarlyClose.CLOSED && p.allMarkersReceived()) {
      complete(p);
    }
  }

  /**
   * Starts {@code snapshotId} here as an initiator: records the local state and the counters, sends
   * a marker on every outgoing channel (sorted by peer), starts recording every incoming channel. A
   * worker without incoming channels completes at once.
   *
   * @throws IllegalStateException when that id is in flight or was recently completed, failed or
   *     aborted here (with several initiators, the marker of another one may already have come: use
   *     {@link #tryStartSnapshot} to treat that as done)
   */
  public void startSnapshot(long snapshotId) {
    if (pending.containsKey(snapshotId)) {
      throw new IllegalStateException(
          workerId + ": snapshot " + snapshotId + " is already in flight here");
    }
    if (recent.contains(snapshotId)) {
      throw new IllegalStateException(
          workerId + ": snapshot " + snapshotId + " was already completed, failed or aborted here");
    }
    recordState(snapshotId, null);
  }

  /**
   * Like {@link #startSnapshot}, but returns {@code false} (and does nothing) when this worker
   * already knows {@code snapshotId}: the normal case when several initiators start one snapshot
   * and another initiator's marker got here first.
   */
  public boolean tryStartSnapshot(long snapshotId) {
    if (isKnown(snapshotId)) {
      return false;
    }
    recordState(snapshotId, null);
    return true;
  }

  /** Whether {@code snapshotId} is in flight here or among the recently finished ones. */
  public boolean isKnown(long snapshotId) {
    return pending.containsKey(snapshotId) || over(snapshotId);
  }

  /**
   * A coordinator's welcome: it starts no snapshot below {@code nextSnapshotId} (unsigned; 0 = not
   * known) and has only {@code stillPending} of those pending. A marker of any other one below it
   * starts nothing here: that snapshot ended (it was aborted while this worker's session was down,
   * or its coordinator stopped), and a recording started for it would wait forever for the markers
   * of workers that ended it. Ends the recordings of those snapshots in flight here.
   *
   * @return the ids whose recordings it ended
   */
  public List<Long> endedBelow(long nextSnapshotId, Set<Long> stillPending) {
    if (nextSnapshotId == 0) {
      return List.of();
    }
    floor = nextSnapshotId;
    floorPending = Set.copyOf(stillPending);
    List<Long> ended = new ArrayList<>();
    for (long id : List.copyOf(pending.keySet())) {
      if (over(id)) {
        abort(id);
        ended.add(id);
      }
    }
    return ended;
  }

  /** Whether this worker is done with {@code snapshotId}, or a welcome said it is over. */
  private boolean over(long snapshotId) {
    return recent.contains(snapshotId)
        || (Long.compareUnsigned(snapshotId, floor) < 0 && !floorPending.contains(snapshotId));
  }

  /**
   * Records this worker for {@code snapshotId}; returns its pending snapshot, or null when the
   * capture failed or it completed at once.
   */
  private PendingLocalSnapshot recordState(long snapshotId, String firstMarkerFrom) {
    long began = options.nanoClock().getAsLong();
    CapturedState state;
    try {
      state = Objects.requireNonNull(capture.capture(snapshotId), "captured state");
    } catch (Exception | Error e) { // the application's: whatever it throws fails the snapshot
      recent.remember(snapshotId);
      output.failed(snapshotId, workerId + ": state capture failed: " + e);
      return null;
    }
    PendingLocalSnapshot p =
        new PendingLocalSnapshot(
            snapshotId,
            firstMarkerFrom,
            state,
            outgoing,
            incoming,
            began,
            options.nanoClock().getAsLong());
    pending.put(snapshotId, p);
    for (OutgoingChannel out : outgoing) {
      output.sendMarker(out.peer, snapshotId, out.sent);
    }
    if (pending.get(snapshotId) != p) {
      return null;
    }
    output.captured(snapshotId, state);
    if (p.allMarkersReceived()) {
      complete(p);
      return null;
    }
    return p;
  }

  private void complete(PendingLocalSnapshot p) {
    pending.remove(p.snapshotId);
    recent.remember(p.snapshotId);
    output.completed(p.complete(workerId, options.nanoClock().getAsLong()));
  }

  private void fail(PendingLocalSnapshot p, String reason) {
    if (pending.remove(p.snapshotId) == null) {
      return;
    }
    p.dropRecordings();
    recent.remember(p.snapshotId);
    output.failed(p.snapshotId, reason);
  }

  /**
   * Drops whatever is recorded for {@code snapshotId} and ignores its later markers. An id this
   * worker has not seen yet is remembered too, so a marker still on its way does not start it.
   */
  public void abort(long snapshotId) {
    PendingLocalSnapshot p = pending.remove(snapshotId);
    if (p != null) {
      p.dropRecordings();
    }
    recent.remember(snapshotId);
    if (p != null) {
      output.dropped(snapshotId);
    }
  }

  /** Drops every in-flight snapshot (on halt); their later markers are ignored. */
  public void abortAll() {
    List<PendingLocalSnapshot> dropped = List.copyOf(pending.values());
    pending.clear();
    for (PendingLocalSnapshot p : dropped) {
      p.dropRecordings();
      recent.remember(p.snapshotId);
    }
    for (PendingLocalSnapshot p : dropped) {
      output.dropped(p.snapshotId);
    }
  }

  /**
   * Resets the channel counters to a snapshot's {@code sent_at_cut} and {@code received_at_cut} and
   * drops every in-flight snapshot. A declared channel absent from a map restarts at 0. The caller
   * then feeds the recorded messages through {@link #onData}, ahead of new traffic.
   *
   * @throws IllegalArgumentException on an undeclared peer or a negative count (nothing changes)
   */
  public void restore(Map<String, Long> sentByPeer, Map<String, Long> receivedByPeer) {
    checkRestore(sentByPeer, receivedByPeer);
    abortAll();
    for (OutgoingChannel out : outgoing) {
      out.sent = sentByPeer.getOrDefault(out.peer, 0L);
    }
    for (IncomingChannel in : incoming) {
      in.received = receivedByPeer.getOrDefault(in.peer, 0L);
    }
  }

  /**
   * Checks what {@link #restore} would check, and changes nothing.
   *
   * @throws IllegalArgumentException where {@link #restore} would
   */
  public void checkRestore(Map<String, Long> sentByPeer, Map<String, Long> receivedByPeer) {
    checkCounts(sentByPeer, outByPeer.keySet(), "outgoing");
    checkCounts(receivedByPeer, inByPeer.keySet(), "incoming");
  }

  private void checkCounts(Map<String, Long> counts, Set<String> declared, String what) {
    Objects.requireNonNull(counts, what + " counts");
    counts.forEach(
        (peer, count) -> {
          if (!declared.contains(peer)) {
            throw undeclared("restore a count for", peer, what);
          }
          if (count == null || count < 0) {
            throw new IllegalArgumentException(
                workerId + ": " + what + " count for " + peer + " must be >= 0, got " + count);
          }
        });
  }

  // ---------------------------------------------------------------- queries

  /** Data messages sent so far to {@code to}. */
  public long sent(String to) {
    OutgoingChannel out = outByPeer.get(to);
    if (out == null) {
      throw undeclared("count sent to", to, "outgoing");
    }
    return out.sent;
  }

  /** Data messages received so far from {@code from}. */
  public long received(String from) {
    IncomingChannel in = inByPeer.get(from);
    if (in == null) {
      throw undeclared("count received from", from, "incoming");
    }
    return in.received;
  }

  /** Ids of the snapshots this worker is recording, in ascending order (a copy). */
  public Set<Long> inFlight() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(pending.keySet()));
  }

  /** How many snapshots this worker is recording (no copy). */
  public int inFlightCount() {
    return pending.size();
  }

  /** Markers ignored so far: duplicates on a closed channel and late markers of finished ids. */
  public long ignoredMarkers() {
    return ignoredMarkers;
  }

  public String workerId() {
    return workerId;
  }

  /** Declared outgoing peers, sorted: the order markers are sent in. */
  public SortedSet<String> outgoingPeers() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(outByPeer.keySet()));
  }

  /** Declared incoming peers, sorted. */
  public SortedSet<String> incomingPeers() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(inByPeer.keySet()));
  }

  private IllegalArgumentException undeclared(String action, String peer, String direction) {
    return new IllegalArgumentException(
        workerId
            + ": cannot "
            + action
            + " "
            + peer
            + ": not a declared "
            + direction
            + " channel (declared: "
            + new TreeSet<>(direction.equals("outgoing") ? outByPeer.keySet() : inByPeer.keySet())
            + ")");
  }
}
