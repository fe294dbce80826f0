package io.cutpoint.client;

import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.client.WorkerControl.LocalSnapshotListener;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.engine.EngineOptions;
import io.cutpoint.client.engine.EngineOutput;
import io.cutpoint.client.engine.SnapshotEngine;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.cut.RecordedMessage;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs on a worker's event thread, under the worker lock: the snapshot engine, the receiving
 * ends of the channels, the application's handlers, and the epoch logic of a rollback. Every
 * method except the few marked otherwise must be called holding the worker lock.
 */
final class WorkerCore implements EngineOutput {

  private static final Logger log = LoggerFactory.getLogger(WorkerCore.class);

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
  private volatile long epoch;
  private volatile boolean halted;

  WorkerCore(String workerId, SortedSet<String> outgoing, SortedSet<String> incoming,
      Map<String, ChannelSender> senders, Map<String, ChannelReceiver> receivers,
      StateHandler stateHandler, MessageHandler messageHandler, WorkerMetrics metrics,
      EngineOptions engineOptions, int framesAhead, long epoch) {
    this.workerId = workerId;
    this.incoming = incoming;
    this.senders = senders;
    this.receivers = receivers;
    this.stateHandler = stateHandler;
    this.messageHandler = messageHandler;
    this.metrics = metrics;
    this.framesAhead = framesAhead;
    this.epoch = epoch;
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

  /** First step of a halt, on the caller's thread: from now on sends wait and frames park. */
  void markHalted() {
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
    }
    r.stream = stream;
    stream.ack(epoch, r.delivered);
    stream.request(framesAhead);
  }

  void detach(ChannelReceiver r, InboundStream stream) {
    if (r.stream == stream) {
      r.stream = null;
      stream.complete();
    }
  }

  void onFrame(ChannelReceiver r, InboundStream stream, Frame frame) {
    if (stream != r.stream) {
      return; // a replaced stream: its sender resends on the new one
    }
    if (frame.getEpoch() < epoch) {
      stream.request(1);
      return;
    }
    if (frame.getEpoch() > epoch || halted || !r.parked.isEmpty()) {
      r.parked.add(new ChannelReceiver.Parked(stream, frame));
      return;
    }
    deliver(r, stream, frame);
  }

  private void deliver(ChannelReceiver r, InboundStream origin, Frame frame) {
    for (int i = 0, n = frame.getItemsCount(); i < n; i++) {
      Item item = frame.getItems(i);
      long position = item.getPosition();
      if (position <= r.delivered) {
        continue; // a duplicate after a resend
      }
      if (position != r.delivered + 1) {
        log.warn("channel {}->{}: position {} where {} was expected; dropping the stream",
            r.from, workerId, position, r.delivered + 1);
        if (r.stream != null) {
          r.stream.fail(Status.DATA_LOSS.withDescription("channel " + r.from + "->" + workerId
              + ": position " + position + " where " + (r.delivered + 1) + " was expected"));
          r.stream = null;
        }
        return;
      }
      r.delivered = position;
      try {
        if (item.hasData()) {
          engine.onData(r.from, item.getData().getSeq(), item.getData().getPayload().toByteArray());
        } else if (item.hasMarker()) {
          metrics.markerReceived();
          engine.onMarker(r.from, item.getMarker().getSnapshotId(), item.getMarker().getSentCount());
        }
      } catch (RuntimeException e) {
        log.error("channel {}->{}: item at position {} failed", r.from, workerId, position, e);
      }
    }
    if (r.stream != null) {
      r.stream.ack(epoch, r.delivered);
    }
    if (origin == r.stream) {
      origin.request(1);
    }
  }

  private void drainParked(ChannelReceiver r) {
    while (!r.parked.isEmpty()) {
      ChannelReceiver.Parked p = r.parked.peek();
      if (p.frame().getEpoch() < epoch) {
        r.parked.poll(); // an epoch that was rolled back
        if (p.stream() == r.stream) {
          p.stream().request(1);
        }
        continue;
      }
      if (p.frame().getEpoch() > epoch || halted) {
        return;
      }
      r.parked.poll();
      deliver(r, p.stream(), p.frame());
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
