package io.cutpoint.client;

import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.client.WorkerControl.LocalSnapshotListener;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.engine.EngineOptions;
import io.cutpoint.client.engine.EngineOutput;
import io.cutpoint.client.engine.ProtocolViolationException;
import io.cutpoint.client.engine.SnapshotEngine;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.cut.RecordedMessage;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs on a worker's event thread, under the worker lock: the snapshot engine, the receiving
 * ends of the channels, the application's handlers, and the epoch logic of a rollback. Every
 * method except the few marked otherwise must be called holding the worker lock.
 */
final class WorkerCore implements EngineOutput {

  private static final Logger log = LoggerFactory.getLogger(WorkerCore.class);
  /** Refusals on one channel are logged at WARN at most this often, the others at DEBUG. */
  private static final long REFUSAL_LOG_INTERVAL_NANOS = 1_000_000_000L;

  private final String workerId;
  private final SortedSet<String> incoming;
  private final Map<String, ChannelSender> senders;
  private final Map<String, ChannelReceiver> receivers;
  private final StateHandler stateHandler;
  private final MessageHandler messageHandler;
  private final WorkerMetrics metrics;
  private final int framesAhead;
  private final SnapshotEngine engine;
  private volatile LocalSnapshotListener listener;
  private final ParkingLimits parking;
  private final LongSupplier clock;
  private volatile long epoch;
  /** The newest epoch the coordinator announced (a halt): frames of later epochs are refused. */
  private volatile long announcedEpoch;
  private volatile boolean halted;

  WorkerCore(String workerId, SortedSet<String> outgoing, SortedSet<String> incoming,
      Map<String, ChannelSender> senders, Map<String, ChannelReceiver> receivers,
      StateHandler stateHandler, MessageHandler messageHandler, WorkerMetrics metrics,
      EngineOptions engineOptions, int framesAhead, ParkingLimits parking, long epoch) {
    this.workerId = workerId;
    this.incoming = incoming;
    this.senders = senders;
    this.receivers = receivers;
    this.stateHandler = stateHandler;
    this.messageHandler = messageHandler;
    this.metrics = metrics;
    this.framesAhead = framesAhead;
    this.parking = parking;
    this.clock = engineOptions.nanoClock();
    this.epoch = epoch;
    this.announcedEpoch = epoch;
    this.engine = new SnapshotEngine(workerId, outgoing, incoming, stateHandler::captureState,
        this, engineOptions);
  }

  // ---- any thread ---------------------------------------------------------------------------

  String workerId() {
    return workerId;
  }

  SortedSet<String> incoming() {
    return incoming;
  }

  ChannelReceiver receiver(String from) {
    return receivers.get(from);
  }

  long epoch() {
    return epoch;
  }

  boolean halted() {
    return halted;
  }

  void setListener(LocalSnapshotListener listener) {
    this.listener = listener;
  }

  /**
   * First step of a halt into {@code newEpoch}, which the coordinator just announced, on the
   * caller's thread: from now on sends wait and frames park, frames of {@code newEpoch} included.
   */
  void markHalted(long newEpoch) {
    announcedEpoch = Math.max(announcedEpoch, newEpoch);
    halted = true;
    senders.values().forEach(s -> s.setHalted(true));
  }

  // ---- under the worker lock -----------------------------------------------------------------

  SnapshotEngine engine() {
    return engine;
  }

  /** Numbers and buffers one application message (room was reserved on {@code sender}). */
  long send(ChannelSender sender, byte[] payload) {
    long seq;
    try {
      seq = engine.send(sender.to(), payload);
    } catch (RuntimeException e) {
      sender.unreserve(payload.length);
      throw e;
    }
    sender.appendData(seq, payload);
    metrics.messageSent();
    return seq;
  }

  void attach(ChannelReceiver r, InboundStream stream) {
    if (r.stream != null && r.stream != stream) {
      r.stream.fail(Status.ABORTED.withDescription(
          "replaced by a newer stream of channel " + r.from + "->" + workerId));
      r.dropParked(); // the new stream resends them from the position it is told
    }
    r.stream = stream;
    stream.ack(epoch, r.delivered);
    stream.request(framesAhead);
  }

  void detach(ChannelReceiver r, InboundStream stream) {
    if (r.stream == stream) {
      r.stream = null;
      r.dropParked();
      stream.complete();
    }
  }

  /**
   * A frame arrived on {@code stream}. Frames of older epochs are dropped; a frame of an epoch
   * the coordinator has not announced is refused; a frame that may not be delivered yet (halted,
   * a future epoch, or behind parked frames) is parked within {@link ParkingLimits}.
   */
  void onFrame(ChannelReceiver r, InboundStream stream, Frame frame) {
    if (stream != r.stream) {
      return; // a replaced or refused stream: its sender resends on a new one
    }
    long frameEpoch = frame.getEpoch();
    if (frameEpoch < epoch) {
      stream.request(1);
      return;
    }
    if (frameEpoch > announcedEpoch) {
      refuse(r, Status.FAILED_PRECONDITION.withDescription("channel " + r.from + "->" + workerId
          + ": a frame of epoch " + frameEpoch + ", but the coordinator announced epoch "
          + announcedEpoch + " at most; a future epoch is accepted once it is announced"));
      return;
    }
    if (frameEpoch > epoch || halted || r.hasParked()) {
      park(r, frame);
      return;
    }
    deliver(r, frame);
  }

  private void park(ChannelReceiver r, Frame frame) {
    long now = clock.getAsLong();
    if (expired(r, now)) {
      return;
    }
    int bytes = frame.getSerializedSize();
    if (r.parkedFrames() >= parking.maxFrames()
        || r.parkedBytes() + bytes > parking.maxBytes()) {
      refuse(r, Status.RESOURCE_EXHAUSTED.withDescription("channel " + r.from + "->" + workerId
          + ": " + r.parkedFrames() + " frames (" + r.parkedBytes() + " bytes) wait for the worker"
          + " to resume or to enter their epoch; at most " + parking.maxFrames() + " frames and "
          + parking.maxBytes() + " bytes may wait"));
      return;
    }
    r.park(new ChannelReceiver.Parked(frame, bytes, now));
  }

  /** Refuses the stream of every channel whose oldest parked frame waited past the limit. */
  void expireParked() {
    long now = clock.getAsLong();
    for (ChannelReceiver r : receivers.values()) {
      expired(r, now);
    }
  }

  private boolean expired(ChannelReceiver r, long now) {
    ChannelReceiver.Parked oldest = r.oldestParked();
    if (oldest == null || now - oldest.parkedAtNanos() <= parking.maxAge().toNanos()) {
      return false;
    }
    refuse(r, Status.DEADLINE_EXCEEDED.withDescription("channel " + r.from + "->" + workerId
        + ": frames parked for longer than " + parking.maxAge().toMillis() + " ms while the"
        + " worker waited to resume or to enter their epoch"));
    return true;
  }

  /**
   * Ends the live stream with {@code status} and drops what it parked. The position stays where
   * it is, so the real sender's next stream resends from there.
   */
  private void refuse(ChannelReceiver r, Status status) {
    long now = clock.getAsLong();
    if (now - r.lastRefusalLoggedNanos >= REFUSAL_LOG_INTERVAL_NANOS) {
      r.lastRefusalLoggedNanos = now; // a sender ahead of this worker's epoch retries every few ms
      log.warn("{}: {}", status.getCode(), status.getDescription());
    } else {
      log.debug("{}: {}", status.getCode(), status.getDescription());
    }
    r.dropParked();
    if (r.stream != null) {
      r.stream.fail(status);
      r.stream = null;
    }
  }

  /** Delivers the items of {@code frame}, which came on the live stream {@code r.stream}. */
  private void deliver(ChannelReceiver r, Frame frame) {
    for (int i = 0, n = frame.getItemsCount(); i < n; i++) {
      Item item = frame.getItems(i);
      long position = item.getPosition();
      if (position <= r.delivered) {
        continue; // a duplicate after a resend
      }
      if (position != r.delivered + 1) {
        refuse(r, Status.DATA_LOSS.withDescription("channel " + r.from + "->" + workerId
            + ": position " + position + " where " + (r.delivered + 1) + " was expected"));
        return;
      }
      Status bad = apply(r, item, position);
      if (bad != null) {
        refuse(r, bad);
        return;
      }
      r.delivered = position;
    }
    r.stream.ack(epoch, r.delivered);
    r.stream.request(1);
  }

  /** Hands one item to the engine; a status when the item is refused (the engine is unchanged). */
  private Status apply(ChannelReceiver r, Item item, long position) {
    try {
      switch (item.getKindCase()) {
        case DATA -> engine.onData(r.from, item.getData().getSeq(),
            item.getData().getPayload().toByteArray());
        case MARKER -> {
          long sentCount = item.getMarker().getSentCount();
          if (sentCount < 0) { // past 2^63: the engine would read it as "unknown" and skip its check
            return Status.INVALID_ARGUMENT.withDescription("channel " + r.from + "->" + workerId
                + ": the marker at position " + position + " carries sent count "
                + Long.toUnsignedString(sentCount) + ", beyond any count a sender can reach");
          }
          engine.onMarker(r.from, item.getMarker().getSnapshotId(), sentCount);
          metrics.markerReceived();
        }
        default -> {
          return Status.INVALID_ARGUMENT.withDescription("channel " + r.from + "->" + workerId
              + ": the item at position " + position + " carries neither data nor a marker");
        }
      }
      return null;
    } catch (ProtocolViolationException e) {
      return Status.DATA_LOSS.withDescription("channel " + r.from + "->" + workerId
          + ": the item at position " + position + " is refused: " + e.getMessage());
    } catch (RuntimeException e) {
      // The engine took the item; what failed came after it (an output of the engine).
      log.error("channel {}->{}: item at position {} failed", r.from, workerId, position, e);
      return null;
    }
  }

  private void drainParked(ChannelReceiver r) {
    while (r.hasParked()) {
      Frame frame = r.oldestParked().frame();
      if (frame.getEpoch() < epoch) {
        r.takeParked(); // an epoch that was rolled back
        r.stream.request(1);
        continue;
      }
      if (frame.getEpoch() > epoch || halted) {
        return;
      }
      r.takeParked();
      deliver(r, frame);
    }
  }

  void startSnapshot(long snapshotId) {
    if (!engine.tryStartSnapshot(snapshotId)) {
      log.debug("{}: snapshot {} is already known here", workerId, snapshotId);
    }
  }

  void abortSnapshot(long snapshotId) {
    engine.abort(snapshotId);
  }

  void halt(long newEpoch) {
    if (newEpoch < epoch) {
      throw new IllegalArgumentException(workerId + ": cannot halt into epoch " + newEpoch
          + ", the worker is already in epoch " + epoch);
    }
    engine.abortAll();
    announcedEpoch = Math.max(announcedEpoch, newEpoch);
    epoch = newEpoch;
    for (ChannelSender s : senders.values()) {
      s.startEpoch(newEpoch);
    }
    for (ChannelReceiver r : receivers.values()) {
      r.delivered = 0;
      r.replay = List.of();
      drainParked(r);
    }
  }

  void restore(long restoreEpoch, LocalSnapshot piece, byte[] state) {
    if (!halted) {
      throw new IllegalStateException(workerId + ": restore needs a halted worker");
    }
    if (restoreEpoch != epoch) {
      throw new IllegalArgumentException(workerId + ": restore for epoch " + restoreEpoch
          + " but the worker was halted into epoch " + epoch);
    }
    if (!workerId.equals(piece.workerId())) {
      throw new IllegalArgumentException(workerId + ": cannot restore the piece of worker "
          + piece.workerId());
    }
    for (String peer : piece.recordings().keySet()) {
      if (!receivers.containsKey(peer)) {
        throw new IllegalArgumentException(workerId + ": the piece records messages from "
            + peer + ", which is not an incoming channel");
      }
    }
    engine.restore(piece.sent(), piece.received());
    stateHandler.restore(state);
    for (ChannelReceiver r : receivers.values()) {
      r.replay = piece.recorded(r.from);
    }
  }

  void resume(long resumeEpoch) {
    if (resumeEpoch != epoch) {
      throw new IllegalArgumentException(workerId + ": resume in epoch " + resumeEpoch
          + " but the worker is in epoch " + epoch);
    }
    if (!halted) {
      return;
    }
    halted = false;
    senders.values().forEach(s -> s.setHalted(false));
    for (ChannelReceiver r : receivers.values()) {
      List<RecordedMessage> replay = r.replay;
      r.replay = List.of();
      for (RecordedMessage m : replay) {
        engine.onData(r.from, m.seq(), m.payload().clone());
      }
    }
    receivers.values().forEach(this::drainParked);
  }

  // ---- EngineOutput: synchronous callbacks from inside engine calls ----------------------------

  @Override
  public void sendMarker(String to, long snapshotId, long sentCount) {
    senders.get(to).appendMarker(snapshotId, sentCount);
    metrics.markerSent();
  }

  @Override
  public void deliver(String from, long seq, byte[] payload) {
    metrics.messageReceived();
    try {
      messageHandler.onMessage(from, seq, payload);
    } catch (RuntimeException e) {
      log.error("{}: the message handler failed on message {} from {}", workerId, seq, from, e);
    }
  }

  @Override
  public void completed(CompletedLocalSnapshot snapshot) {
    metrics.snapshotCompleted();
    LocalSnapshotListener l = listener;
    if (l != null) {
      try {
        l.completed(snapshot);
      } catch (RuntimeException e) {
        log.error("{}: the snapshot listener failed", workerId, e);
      }
    }
  }

  @Override
  public void failed(long snapshotId, String reason) {
    metrics.snapshotFailed();
    LocalSnapshotListener l = listener;
    if (l != null) {
      try {
        l.failed(snapshotId, reason);
      } catch (RuntimeException e) {
        log.error("{}: the snapshot listener failed", workerId, e);
      }
    }
  }
}
