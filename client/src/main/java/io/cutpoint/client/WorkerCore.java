package io.cutpoint.client;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.engine.EngineOptions;
import io.cutpoint.client.engine.EngineOutput;
import io.cutpoint.client.engine.ProtocolViolationException;
import io.cutpoint.client.engine.SnapshotEngine;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's state machine below the wire: the snapshot engine, the receiving ends of its
 * channels (positions, epochs, parked frames, de-duplication by position, replay after a restore),
 * and the application's handlers. It takes domain events ({@link InboundFrame}s on {@link
 * InboundLink}s, commands, sends, the passing of time) and returns what the surroundings must do as
 * {@link WorkerEffect}s, in order. It does no I/O and reads time from the engine options' clock, so
 * the same class runs over gRPC and in the seeded simulator.
 *
 * <p><b>Threading.</b> Every method but those marked "any thread" is called by one thread at a time
 * (the worker's event loop). The handlers run inside those calls; a handler's {@link #send} returns
 * the effects produced so far, so that its caller applies them in order before it goes on.
 */
final class WorkerCore implements EngineOutput {

  private static final Logger log = LoggerFactory.getLogger(WorkerCore.class);

  /** Refusals on one channel are logged at WARN at most this often, the others at DEBUG. */
  private static final long REFUSAL_LOG_INTERVAL_NANOS = 1_000_000_000L;

  /**
   * How long frames that did not ask for an ack at once ({@link InboundFrame#ackNow}) wait for it:
   * one ack then covers every frame of the channel delivered meanwhile. Nothing waits for these
   * acks but the trimming of the sender's buffer, and a sender asks for them at once when it needs
   * the room.
   */
  static final long ACK_DELAY_NANOS = 50_000_000L;

  /**
   * Positions delivered without an ack after which the next frame is acknowledged at once anyway:
   * what an idle channel's sender holds (its markers) and resends after a reconnect stays small
   * when snapshots come faster than {@link #ACK_DELAY_NANOS}.
   */
  static final int ACK_EVERY_POSITIONS = 32;

  private final String workerId;
  private final SortedSet<String> incoming;
  private final Map<String, ChannelReceiver> receivers = new TreeMap<>();
  private final StateHandler stateHandler;
  private final MessageHandler messageHandler;
  private final WorkerMetrics metrics;
  private final int framesAhead;
  private final boolean markersAhead;
  private final SnapshotEngine engine;
  private final ParkingLimits parking;
  private final LongSupplier clock;
  private final List<WorkerEffect> effects = new ArrayList<>();
  private volatile long epoch;

  /** The newest epoch the coordinator announced (a halt): frames of later epochs are refused. */
  private volatile long announcedEpoch;

  private volatile boolean halted;
  private Broken broken = Broken.NONE;

  /**
   * Deliberately broken variants of the core, for the seeded simulator only: they show that its
   * checks catch a core that gets epochs or replay wrong (as the simulator's engine faults show it
   * for the engine). Production never sets one; the default is {@link #NONE}.
   */
  enum Broken {
    /** The correct core. */
    NONE,
    /** Frames of older epochs are taken like frames of the current one (no epoch fencing). */
    NO_EPOCH_FENCING,
    /** On resume, frames parked in the new epoch are delivered before the recorded messages. */
    REPLAY_AFTER_NEW_TRAFFIC,
    /**
     * A marker read ahead is taken as if nothing were queued before it: the data queued before it
     * is delivered after the cut but not recorded.
     */
    MARKER_AHEAD_DROPS_DATA_AT_HAND
  }

  WorkerCore(
      String workerId,
      SortedSet<String> outgoing,
      SortedSet<String> incoming,
      StateHandler stateHandler,
      MessageHandler messageHandler,
      WorkerMetrics metrics,
      EngineOptions engineOptions,
      int framesAhead,
      boolean markersAhead,
      ParkingLimits parking,
      long epoch) {
    this.workerId = workerId;
    this.incoming = Collections.unmodifiableSortedSet(incoming);
    for (String peer : incoming) {
      receivers.put(peer, new ChannelReceiver(peer));
    }
    this.stateHandler = stateHandler;
    this.messageHandler = messageHandler;
    this.metrics = metrics;
    this.framesAhead = framesAhead;
    this.markersAhead = markersAhead;
    this.parking = parking;
    this.clock = engineOptions.nanoClock();
    this.epoch = epoch;
    this.announcedEpoch = epoch;
    this.engine =
        new SnapshotEngine(
            workerId, outgoing, incoming, stateHandler::captureState, this, engineOptions);
  }

  /** Test only: makes this core a deliberately broken variant (see {@link Broken}). */
  void breakForTest(Broken variant) {
    this.broken = variant;
  }

  // ---- any thread ---------------------------------------------------------------------------

  String workerId() {
    return workerId;
  }

  SortedSet<String> incoming() {
    return incoming;
  }

  /** Whether {@code from -> this worker} is a declared channel. */
  boolean receivesFrom(String from) {
    return receivers.containsKey(from);
  }

  long epoch() {
    return epoch;
  }

  boolean halted() {
    return halted;
  }

  /**
   * First step of a halt into {@code newEpoch}, which the coordinator just announced, on the
   * caller's thread: from now on frames park, frames of {@code newEpoch} included. (The caller also
   * stops its application sends; {@link #halt} follows on the core's thread.)
   */
  void markHalted(long newEpoch) {
    announcedEpoch = Math.max(announcedEpoch, newEpoch);
    halted = true;
  }

  // ---- the core's thread --------------------------------------------------------------------

  SnapshotEngine engine() {
    return engine;
  }

  /** The receiving end of {@code from}'s channel (for tests and introspection), or null. */
  ChannelReceiver receiver(String from) {
    return receivers.get(from);
  }

  /**
   * The number of the last message sent ({@code 0} for none), and the effects so far (their {@link
   * WorkerEffect.SendData} last, in order).
   */
  record Sent(long seq, List<WorkerEffect> effects) {}

  /**
   * The application sends {@code payload} to {@code to} (the caller reserved room for it). Called
   * from a handler, the effects include those of the event the handler runs in, in order.
   */
  Sent send(String to, byte[] payload) {
    return send(to, List.of(payload));
  }

  /**
   * The application sends {@code payloads} to {@code to}, in order (the caller reserved room for
   * them): one call and one list of effects for the batch an event turn numbers.
   */
  Sent send(String to, List<byte[]> payloads) {
    long seq = 0;
    for (int i = 0, n = payloads.size(); i < n; i++) {
      byte[] payload = payloads.get(i);
      seq = engine.send(to, payload);
      emit(new WorkerEffect.SendData(to, seq, payload));
    }
    metrics.messagesSent(payloads.size());
    return new Sent(seq, drain());
  }

  /** A new stream of {@code from}'s channel; a stream it replaces is refused. */
  List<WorkerEffect> attach(String from, InboundLink link) {
    ChannelReceiver r = receivers.get(from);
    InboundLink old = r.stream();
    if (old != null && old != link) {
      emit(
          new WorkerEffect.Refuse(
              old,
              new Refusal(
                  Refusal.Kind.REPLACED,
                  "replaced by a newer stream of channel " + from + "->" + workerId)));
      r.dropFrames(); // the new stream resends them from the position it is told
    }
    r.setStream(link);
    ack(r); // tells the new stream where to resume
    emit(new WorkerEffect.Request(link, framesAhead));
    return drain();
  }

  /** Acknowledges, on {@code r}'s live stream, every position delivered so far. */
  private void ack(ChannelReceiver r) {
    r.unacked(0);
    if (r.stream() != null) {
      emit(new WorkerEffect.Ack(r.stream(), epoch, r.delivered()));
    }
  }

  /**
   * The turn {@link WorkerEffect.AckLater} asked for: acknowledges what {@code from}'s channel
   * delivered since its last ack, if anything, on its live stream.
   */
  List<WorkerEffect> ackDue(String from) {
    ChannelReceiver r = receivers.get(from);
    r.ackPosted(false);
    if (r.unacked() > 0) {
      ack(r);
    }
    return drain();
  }

  /** The sender ended {@code link}. */
  List<WorkerEffect> detach(String from, InboundLink link) {
    ChannelReceiver r = receivers.get(from);
    if (r.stream() == link) {
      r.setStream(null);
      r.dropFrames();
      emit(new WorkerEffect.Close(link));
    }
    return drain();
  }

  /**
   * A frame arrived on {@code link}. Frames of older epochs are dropped; a frame of an epoch the
   * coordinator has not announced is refused; a frame that may not be delivered yet (halted, a
   * future epoch, or behind parked frames) is parked within {@link ParkingLimits}.
   */
  List<WorkerEffect> onFrame(String from, InboundLink link, InboundFrame frame) {
    ChannelReceiver r = receivers.get(from);
    if (link != r.stream()) {
      return drain(); // a replaced or refused stream: its sender resends on a new one
    }
    long frameEpoch = frame.epoch();
    if (frameEpoch >= 0 && frameEpoch < epoch && broken != Broken.NO_EPOCH_FENCING) {
      emit(new WorkerEffect.Request(link, 1));
    } else if (frameEpoch < 0 || frameEpoch > announcedEpoch) { // < 0: 2^63 or more on the wire
      refuse(
          r,
          Refusal.Kind.EPOCH_NOT_ANNOUNCED,
          channel(r)
              + ": a frame of epoch "
              + frameEpoch
              + ", but the coordinator announced epoch "
              + announcedEpoch
              + " at most; a future epoch is accepted once it is announced");
    } else if (frameEpoch > epoch || halted || r.hasParked()) {
      park(r, frame);
    } else if (!markersAhead) {
      deliver(r, frame);
    } else {
      readAhead(r, frame);
    }
    return drain();
  }

  /**
   * Queues {@code frame} behind the frames read ahead of the application, takes each marker in it
   * at once with the data queued before it ({@link SnapshotEngine#onEarlyMarker}), and asks for a
   * turn to deliver the oldest frame. A snapshot then records this worker, and closes this channel,
   * when its marker is read, not when the application has worked through the frames before it.
   */
  private void readAhead(ChannelReceiver r, InboundFrame frame) {
    r.ready().add(frame);
    List<ChannelItem> items = frame.items();
    for (int i = 0, n = items.size(); i < n; i++) {
      if (items.get(i) instanceof ChannelItem.Mark m
          && m.position() > r.delivered()
          && m.sentCount() >= 0) {
        markerAhead(r, m);
      }
    }
    postDelivery(r);
  }

  /** Asks for a turn to deliver {@code r}'s next frame read ahead, unless one is asked for. */
  private void postDelivery(ChannelReceiver r) {
    if (!r.deliveryPosted()) {
      r.deliveryPosted(true);
      emit(new WorkerEffect.DeliverNext(r.from()));
    }
  }

  /**
   * A marker read ahead: the data before it in the ready frames, not delivered yet, is at hand. A
   * gap or a malformed item leaves the marker to its turn in order, which refuses the stream.
   */
  private void markerAhead(ChannelReceiver r, ChannelItem.Mark marker) {
    List<InTransitMessage> atHand = r.dataReadAheadOf(marker.position());
    // in-stream, every message sent before the marker is at hand: any other count is refused in
    // the marker's turn, so it must not act first
    if (atHand != null && marker.sentCount() == engine.received(r.from()) + atHand.size()) {
      earlyMarker(r, marker, atHand);
    }
  }

  private void earlyMarker(
      ChannelReceiver r, ChannelItem.Mark marker, List<InTransitMessage> atHand) {
    try {
      long ignored = engine.ignoredMarkers();
      if (broken == Broken.MARKER_AHEAD_DROPS_DATA_AT_HAND) {
        engine.onMarker(r.from(), marker.snapshotId(), -1);
        return;
      }
      engine.onEarlyMarker(r.from(), marker.snapshotId(), marker.sentCount(), atHand);
      if (engine.ignoredMarkers() == ignored && !atHand.isEmpty()) {
        metrics.markerAhead();
      }
    } catch (ProtocolViolationException | IllegalArgumentException e) {
      // not taken: the marker's turn in order refuses what is wrong with the channel
      log.debug("{}: marker read ahead not taken: {}", channel(r), e.getMessage());
    }
  }

  /**
   * The turn {@link WorkerEffect.DeliverNext} asked for: delivers the oldest frame read ahead on
   * {@code from}'s channel, and asks for another turn while frames wait.
   */
  List<WorkerEffect> deliverNext(String from) {
    ChannelReceiver r = receivers.get(from);
    r.deliveryPosted(false);
    if (halted) {
      return drain(); // what is read waits for the resume, which delivers it
    }
    InboundFrame frame = r.ready().poll();
    if (frame != null) {
      deliver(r, frame);
    }
    if (!r.ready().isEmpty()) {
      postDelivery(r);
    }
    return drain();
  }

  private void park(ChannelReceiver r, InboundFrame frame) {
    long now = clock.getAsLong();
    if (expired(r, now)) {
      return;
    }
    if (r.parkedFrames() >= parking.maxFrames()
        || r.parkedBytes() + frame.bytes() > parking.maxBytes()) {
      refuse(
          r,
          Refusal.Kind.PARKING_FULL,
          channel(r)
              + ": "
              + r.parkedFrames()
              + " frames ("
              + r.parkedBytes()
              + " bytes) wait for the worker"
              + " to resume or to enter their epoch; at most "
              + parking.maxFrames()
              + " frames and "
              + parking.maxBytes()
              + " bytes may wait");
      return;
    }
    r.park(new ChannelReceiver.Parked(frame, now));
  }

  /** Time passed: refuses the stream of every channel whose oldest parked frame waited too long. */
  List<WorkerEffect> expireParked() {
    long now = clock.getAsLong();
    for (ChannelReceiver r : receivers.values()) {
      expired(r, now);
    }
    return drain();
  }

  private boolean expired(ChannelReceiver r, long now) {
    ChannelReceiver.Parked oldest = r.oldestParked();
    if (oldest == null || now - oldest.parkedAtNanos() <= parking.maxAge().toNanos()) {
      return false;
    }
    refuse(
        r,
        Refusal.Kind.PARKED_TOO_LONG,
        channel(r)
            + ": frames parked for longer than "
            + parking.maxAge().toMillis()
            + " ms while the"
            + " worker waited to resume or to enter their epoch");
    return true;
  }

  /**
   * Ends the live stream and drops what it parked. The position stays where it is, so the real
   * sender's next stream resends from there.
   */
  private void refuse(ChannelReceiver r, Refusal.Kind kind, String description) {
    if (r.mayLogRefusal(clock.getAsLong(), REFUSAL_LOG_INTERVAL_NANOS)) {
      log.warn("{}: {}", kind, description); // a sender ahead of this epoch retries every few ms
    } else {
      log.debug("{}: {}", kind, description);
    }
    r.dropFrames();
    if (r.stream() != null) {
      emit(new WorkerEffect.Refuse(r.stream(), new Refusal(kind, description)));
      r.setStream(null);
    }
  }

  /** Delivers the items of {@code frame}, which came on the live stream. */
  private void deliver(ChannelReceiver r, InboundFrame frame) {
    InboundLink link = r.stream();
    long deliveredBefore = r.delivered();
    for (ChannelItem item : frame.items()) {
      long position = item.position();
      if (position < 1) { // 0, or 2^63 and more on the wire: no position a sender gives
        refuse(
            r,
            Refusal.Kind.MALFORMED,
            channel(r) + ": an item at position " + Long.toUnsignedString(position));
        return;
      }
      if (position <= r.delivered()) {
        continue; // a duplicate after a resend
      }
      if (position != r.delivered() + 1) {
        refuse(
            r,
            Refusal.Kind.DATA_LOSS,
            channel(r)
                + ": position "
                + position
                + " where "
                + (r.delivered() + 1)
                + " was expected");
        return;
      }
      Refusal bad = apply(r, item);
      if (bad != null) {
        refuse(r, bad.kind(), bad.description());
        return;
      }
      r.delivered(position);
    }
    r.unacked(r.unacked() + r.delivered() - deliveredBefore);
    if (frame.ackNow() || r.unacked() >= ACK_EVERY_POSITIONS) {
      ack(r);
    } else if (r.unacked() > 0 && !r.ackPosted()) {
      r.ackPosted(true);
      emit(new WorkerEffect.AckLater(r.from(), ACK_DELAY_NANOS));
    }
    emit(new WorkerEffect.Request(link, 1));
  }

  /** Hands one item to the engine; a refusal when the item is refused (the engine is unchanged). */
  private Refusal apply(ChannelReceiver r, ChannelItem item) {
    try {
      if (item instanceof ChannelItem.Data d) {
        engine.onData(r.from(), d.seq(), d.payload());
      } else if (item instanceof ChannelItem.Mark m) {
        if (m.sentCount() < 0) { // past 2^63: the engine would read it as "unknown"
          return new Refusal(
              Refusal.Kind.MALFORMED,
              channel(r)
                  + ": the marker at position "
                  + m.position()
                  + " carries sent count "
                  + Long.toUnsignedString(m.sentCount())
                  + ", beyond any count a sender can reach");
        }
        engine.onMarker(r.from(), m.snapshotId(), m.sentCount());
        metrics.markerReceived();
      } else {
        return new Refusal(
            Refusal.Kind.MALFORMED,
            channel(r)
                + ": the item at position "
                + item.position()
                + " carries neither data nor a marker");
      }
      return null;
    } catch (ProtocolViolationException e) {
      return new Refusal(
          Refusal.Kind.DATA_LOSS,
          channel(r)
              + ": the item at position "
              + item.position()
              + " is refused: "
              + e.getMessage());
    } catch (RuntimeException | Error e) {
      // The engine took the item; what failed came after it (an output of the engine).
      log.error("{}: item at position {} failed", channel(r), item.position(), e);
      return null;
    }
  }

  /** "channel FROM->THIS", for error texts only: not built per item. */
  private String channel(ChannelReceiver r) {
    return "channel " + r.from() + "->" + workerId;
  }

  private void drainParked(ChannelReceiver r) {
    while (r.hasParked()) {
      InboundFrame frame = r.oldestParked().frame();
      if (frame.epoch() < epoch && broken != Broken.NO_EPOCH_FENCING) {
        r.takeParked(); // an epoch that was rolled back
        emit(new WorkerEffect.Request(r.stream(), 1));
        continue;
      }
      if (frame.epoch() > epoch || halted) {
        return;
      }
      r.takeParked();
      deliver(r, frame);
    }
  }

  /** The coordinator (or the application) starts {@code snapshotId} here as an initiator. */
  List<WorkerEffect> startSnapshot(long snapshotId) {
    if (!engine.tryStartSnapshot(snapshotId)) {
      log.debug("{}: snapshot {} is already known here", workerId, snapshotId);
    }
    return drain();
  }

  List<WorkerEffect> abortSnapshot(long snapshotId) {
    engine.abort(snapshotId);
    return drain();
  }

  /**
   * A coordinator's welcome: ends the recordings of snapshots below {@code nextSnapshotId} that are
   * not in {@code pending}. The welcoming coordinator starts no snapshot below that id and has none
   * pending besides those, so a recording of another one belongs to a coordinator that stopped, or
   * to a snapshot whose end this worker did not hear of; nothing else would end it. Markers of
   * those snapshots that arrive later start nothing. {@code nextSnapshotId} 0 (not known) ends
   * nothing.
   */
  List<WorkerEffect> endUnknownSnapshots(long nextSnapshotId, java.util.Set<Long> pending) {
    for (long id : engine.endedBelow(nextSnapshotId, pending)) {
      log.info(
          "{}: snapshot {} is neither pending at the coordinator nor to come; recording ended",
          workerId,
          id);
    }
    return drain();
  }

  /**
   * Second step of a halt (after {@link #markHalted}): drops recordings, enters {@code newEpoch}. A
   * halt into the epoch the worker is already in (a welcome that holds the workers, a halt sent
   * again to a worker that rejoined) halts in place: the epoch goes on, and so do its channel
   * positions, a restore's queued replay and the sends claimed before it, because peers may still
   * run in that epoch (restarting the positions would make this worker resend from position 1 what
   * they already delivered, and refuse what they send next as a gap).
   */
  List<WorkerEffect> halt(long newEpoch) {
    if (newEpoch < epoch) {
      throw new IllegalArgumentException(
          workerId
              + ": cannot halt into epoch "
              + newEpoch
              + ", the worker is already in epoch "
              + epoch);
    }
    markHalted(newEpoch);
    engine.abortAll();
    if (newEpoch == epoch) {
      return drain(); // frames read ahead wait for the resume, as parked ones do
    }
    for (ChannelReceiver r : receivers.values()) {
      dropReady(r); // of the epoch that ends
    }
    epoch = newEpoch;
    emit(new WorkerEffect.EnterEpoch(newEpoch));
    renumber();
    for (ChannelReceiver r : receivers.values()) {
      r.startEpoch();
      drainParked(r);
    }
    return drain();
  }

  /** Restores state and counters from {@code piece}; its recordings wait for {@link #resume}. */
  List<WorkerEffect> restore(long restoreEpoch, LocalSnapshot piece, byte[] state) {
    if (!halted) {
      throw new IllegalStateException(workerId + ": restore needs a halted worker");
    }
    if (restoreEpoch != epoch) {
      throw new IllegalArgumentException(
          workerId
              + ": restore for epoch "
              + restoreEpoch
              + " but the worker was halted into epoch "
              + epoch);
    }
    if (!workerId.equals(piece.workerId())) {
      throw new IllegalArgumentException(
          workerId + ": cannot restore the piece of worker " + piece.workerId());
    }
    for (String peer : piece.recordings().keySet()) {
      if (!receivers.containsKey(peer)) {
        throw new IllegalArgumentException(
            workerId
                + ": the piece records messages from "
                + peer
                + ", which is not an incoming channel");
      }
    }
    engine.checkRestore(piece.sent(), piece.received());
    // the application first: if it refuses the state, nothing of the snapshot is applied here, and
    // a worker that resumes anyway (an operator cancelled) runs on the state and counters it held
    stateHandler.restore(state);
    engine.restore(piece.sent(), piece.received());
    renumber();
    for (ChannelReceiver r : receivers.values()) {
      r.queueReplay(piece.recorded(r.from()));
    }
    return drain();
  }

  /** Ends a rollback: replays the recorded messages, then what was parked, then new traffic. */
  List<WorkerEffect> resume(long resumeEpoch) {
    if (resumeEpoch != epoch) {
      throw new IllegalArgumentException(
          workerId + ": resume in epoch " + resumeEpoch + " but the worker is in epoch " + epoch);
    }
    if (!halted) {
      return drain();
    }
    halted = false;
    emit(new WorkerEffect.Resumed(epoch));
    if (broken == Broken.REPLAY_AFTER_NEW_TRAFFIC) {
      receivers.values().forEach(this::drainParked);
    }
    for (ChannelReceiver r : receivers.values()) {
      for (InTransitMessage m : r.takeReplay()) {
        engine.onData(r.from(), m.seq(), m.payload().clone());
      }
    }
    for (ChannelReceiver r : receivers.values()) {
      deliverReady(r);
      drainParked(r);
    }
    return drain();
  }

  /** Drops the frames read ahead and asks for as many in their place. */
  private void dropReady(ChannelReceiver r) {
    for (int n = r.ready().size(); n > 0; n--) {
      r.ready().poll();
      emit(new WorkerEffect.Request(r.stream(), 1));
    }
  }

  /** Delivers the frames read ahead before a halt, ahead of what was parked since. */
  private void deliverReady(ChannelReceiver r) {
    InboundFrame frame;
    while ((frame = r.ready().poll()) != null) {
      deliver(r, frame);
    }
  }

  private void renumber() {
    for (String to : engine.outgoingPeers()) {
      emit(new WorkerEffect.Renumber(to, engine.sent(to)));
    }
  }

  private void emit(WorkerEffect effect) {
    effects.add(effect);
  }

  /** The effects emitted since the last drain, as an unmodifiable list sized to them. */
  private List<WorkerEffect> drain() {
    if (effects.isEmpty()) {
      return List.of();
    }
    // one exact copy (a single object for a lone effect) instead of a fresh list that grows an
    // array of ten: this runs once per core call, that is per frame received and per batch sent
    List<WorkerEffect> out = List.copyOf(effects);
    effects.clear();
    return out;
  }

  // ---- EngineOutput: synchronous callbacks from inside engine calls ----------------------------

  @Override
  public void sendMarker(String to, long snapshotId, long sentCount) {
    emit(new WorkerEffect.SendMarker(to, snapshotId, sentCount));
    metrics.markerSent();
  }

  @Override
  public void deliver(String from, long seq, byte[] payload) {
    metrics.messageReceived();
    try {
      messageHandler.onMessage(from, seq, payload);
    } catch (Exception | Error e) {
      // Delivered all the same: the engine counted it, and the channel goes on behind it. An
      // Error (an assertion, a stack overflow) or an undeclared checked exception included.
      log.error("{}: the message handler failed on message {} from {}", workerId, seq, from, e);
    }
  }

  @Override
  public void captured(long snapshotId, CapturedState state) {
    emit(new WorkerEffect.Captured(snapshotId, state));
  }

  @Override
  public void dropped(long snapshotId) {
    emit(new WorkerEffect.Dropped(snapshotId));
  }

  @Override
  public void completed(CompletedLocalSnapshot snapshot) {
    metrics.snapshotCompleted();
    emit(new WorkerEffect.Completed(snapshot));
  }

  @Override
  public void failed(long snapshotId, String reason) {
    metrics.snapshotFailed();
    emit(new WorkerEffect.Failed(snapshotId, reason));
  }
}
