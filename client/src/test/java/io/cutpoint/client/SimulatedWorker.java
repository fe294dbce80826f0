package io.cutpoint.client;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.engine.EngineOptions;
import io.cutpoint.cut.LocalSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * One incarnation of a worker in the seeded simulator: the production {@link WorkerCore} and a thin
 * simulated transport that does with each {@link WorkerEffect} what the gRPC transport does ({@code
 * WireEffects}, {@code ChannelSender}, {@code InboundStream}). Each outgoing channel keeps its
 * items of the current epoch until they are acknowledged, opens a stream with a header, waits for
 * the receiver's first ack and resends from there, and reopens a stream that ended after a random
 * delay. Each incoming stream hands frames to the core only as the core asks for them. The
 * transport decides nothing the core decides: epochs, parking, de-duplication, replay and refusals
 * are the core's.
 *
 * <p>Beyond {@code ChannelSender}, a reconnecting sender may write its unacknowledged items at
 * once, before the receiver's first ack ({@link Options#resendBeforeAckPercent}): the receiver then
 * sees positions it already delivered and must drop them. Single-threaded: the simulator calls it
 * from its one event loop.
 */
public final class SimulatedWorker {

  /** Simulated time, randomness and the other workers, as the simulator provides them. */
  public interface Network {
    long now();

    /** Runs {@code action} at tick {@code time}. */
    void at(long time, Runnable action);

    /** A random delay of at least one tick. */
    long delay();

    /** A random int in {@code [0, bound)}. */
    int nextInt(int bound);

    /** The live incarnation of {@code workerId}, or null while it is down. */
    SimulatedWorker current(String workerId);

    /** True when {@link #trace} keeps lines. */
    boolean tracing();

    void trace(String line);
  }

  /** What the worker reports: to its coordinator session, and to the simulator's checks. */
  public interface Listener {
    void completed(SimulatedWorker worker, CompletedLocalSnapshot piece);

    void failed(SimulatedWorker worker, long snapshotId, String reason);

    /** The core refused a stream of {@code from -> worker} ({@code kind}: a refusal kind). */
    void refused(SimulatedWorker worker, String from, String kind, String description);

    /**
     * The transport of {@code worker} saw something no correct core does (an ack beyond what was
     * sent).
     */
    void problem(SimulatedWorker worker, String description);
  }

  /** Deliberately broken cores (see {@code WorkerCore.Broken}). */
  public enum BrokenCore {
    NONE,
    NO_EPOCH_FENCING,
    REPLAY_AFTER_NEW_TRAFFIC,
    MARKER_AHEAD_DROPS_DATA_AT_HAND
  }

  /**
   * How the simulated transport behaves.
   *
   * @param maxItemsPerFrame items a frame carries at most
   * @param framesAhead frames a new stream may send before the core asks for more
   * @param resendBeforeAckPercent chance that a reconnecting sender resends before the first ack
   * @param broken the core's variant; {@link BrokenCore#NONE} in every correct schedule
   * @param markersAhead the core reads frames ahead and takes markers as they are read; its turns
   *     to deliver the frames read ahead come after a random delay, while more frames arrive
   */
  public record Options(
      int maxItemsPerFrame,
      int framesAhead,
      int resendBeforeAckPercent,
      BrokenCore broken,
      boolean markersAhead) {}

  private static final ParkingLimits PARKING = new ParkingLimits(64, 64L << 20, Duration.ofDays(1));

  private final String id;
  private final WorkerCore core;
  private final WorkerMetrics metrics = new WorkerMetrics(null);
  private final Map<String, Out> outs = new TreeMap<>();
  private final List<SimLink> inbound = new ArrayList<>();
  private final Network net;
  private final Listener listener;
  private final Options options;
  private boolean dead;
  private boolean replaying;
  private int depth;
  private long framesSent;
  private long framesResent;
  private long reconnects;
  private long duplicateItems;
  private long oldEpochFrames;

  public SimulatedWorker(
      String id,
      SortedSet<String> outgoing,
      SortedSet<String> incoming,
      StateHandler state,
      MessageHandler messages,
      long epoch,
      Network net,
      Listener listener,
      Options options) {
    this.id = id;
    this.net = net;
    this.listener = listener;
    this.options = options;
    this.core =
        new WorkerCore(
            id,
            outgoing,
            incoming,
            state,
            messages,
            metrics,
            EngineOptions.defaults().withNanoClock(net::now),
            options.framesAhead(),
            options.markersAhead(),
            PARKING,
            epoch);
    core.breakForTest(WorkerCore.Broken.valueOf(options.broken().name()));
    for (String peer : outgoing) {
      outs.put(peer, new Out(peer, epoch));
    }
  }

  public String id() {
    return id;
  }

  Network network() {
    return net;
  }

  public long epoch() {
    return core.epoch();
  }

  public boolean halted() {
    return core.halted();
  }

  public boolean alive() {
    return !dead;
  }

  /** True while {@link #resume} runs: recorded messages are being replayed. */
  public boolean replaying() {
    return replaying;
  }

  // ---- the application and the coordinator session ----------------------------------------

  /** Opens a stream on every outgoing channel. */
  public void start() {
    event(() -> outs.values().forEach(Out::open));
  }

  /**
   * The application sends {@code payload}; its sequence number, or 0 when the worker is halted (as
   * {@code Worker.send} from a handler: the message is dropped).
   */
  public long send(String to, byte[] payload) {
    if (dead) {
      throw new IllegalStateException(id + " is down");
    }
    if (core.halted()) {
      return 0;
    }
    long[] seq = new long[1];
    event(
        () -> {
          WorkerCore.Sent sent = core.send(to, payload);
          apply(sent.effects());
          seq[0] = sent.seq();
        });
    return seq[0];
  }

  public void startSnapshot(long snapshotId) {
    event(() -> apply(core.startSnapshot(snapshotId)));
  }

  public void abortSnapshot(long snapshotId) {
    event(() -> apply(core.abortSnapshot(snapshotId)));
  }

  /** What a welcome says of the snapshots the coordinator has pending and will start. */
  public void endUnknownSnapshots(long nextSnapshotId, java.util.Set<Long> pending) {
    event(() -> apply(core.endUnknownSnapshots(nextSnapshotId, pending)));
  }

  /** Both steps of {@code Worker.halt}. */
  public void halt(long newEpoch) {
    event(
        () -> {
          core.markHalted(newEpoch);
          apply(core.halt(newEpoch));
        });
  }

  public void restore(long epoch, LocalSnapshot piece, byte[] state) {
    event(() -> apply(core.restore(epoch, piece, state)));
  }

  public void resume(long epoch) {
    event(
        () -> {
          replaying = true;
          try {
            apply(core.resume(epoch));
          } finally {
            replaying = false;
          }
        });
  }

  // ---- faults ------------------------------------------------------------------------------

  /** The stream of channel {@code this -> to} breaks: what is in flight on it is lost. */
  public void breakStream(String to) {
    Out o = outs.get(to);
    if (!dead && o != null) {
      event(o::breakStream);
    }
  }

  /** The process dies: every stream to and from it breaks; the core is gone. */
  public void crash() {
    if (dead) {
      return;
    }
    dead = true;
    if (net.tracing()) {
      trace(id + " crashes");
    }
    for (Out o : outs.values()) {
      o.breakStream();
    }
    for (SimLink l : inbound) {
      endByReceiver(l);
    }
    inbound.clear();
  }

  // ---- what the checks read ----------------------------------------------------------------

  public long sent(String to) {
    return core.engine().sent(to);
  }

  public long received(String from) {
    return core.engine().received(from);
  }

  public int snapshotsInFlight() {
    return core.engine().inFlightCount();
  }

  /** The snapshots this worker is recording now. */
  public java.util.Set<Long> recording() {
    return core.engine().inFlight();
  }

  /** The incoming channels on which frames are parked now. */
  public SortedSet<String> parkedFrom() {
    SortedSet<String> out = new java.util.TreeSet<>();
    for (String from : core.incoming()) {
      if (core.receiver(from).hasParked()) {
        out.add(from);
      }
    }
    return out;
  }

  /**
   * What keeps this worker from being quiet (halted, recordings, unacknowledged or parked items).
   */
  public List<String> notQuiet() {
    List<String> out = new ArrayList<>();
    if (core.halted()) {
      out.add(id + " is halted");
    }
    if (core.engine().inFlightCount() > 0) {
      out.add(id + " still records snapshots " + core.engine().inFlight());
    }
    outs.values()
        .forEach(
            o -> {
              if (o.ackedPos != o.lastPos) {
                out.add(
                    "channel "
                        + id
                        + "->"
                        + o.to
                        + ": "
                        + (o.lastPos - o.ackedPos)
                        + " items unacknowledged");
              }
            });
    for (String from : core.incoming()) {
      if (core.receiver(from).hasParked()) {
        out.add("channel " + from + "->" + id + ": frames parked");
      }
      if (!core.receiver(from).ready().isEmpty()) {
        out.add("channel " + from + "->" + id + ": frames read ahead, not delivered");
      }
    }
    return out;
  }

  /**
   * Frames written, frames written again, streams reopened, duplicate items, old-epoch frames,
   * markers taken ahead.
   */
  public long[] counts() {
    return new long[] {
      framesSent,
      framesResent,
      reconnects,
      duplicateItems,
      oldEpochFrames,
      metrics.snapshot().markersAhead()
    };
  }

  // ---- the transport -----------------------------------------------------------------------

  private void event(Runnable action) {
    depth++;
    try {
      action.run();
    } finally {
      depth--;
    }
    if (depth == 0 && !dead) {
      afterEvent();
    }
  }

  /** Hands the core the frames it asked for, then writes what the event put on the channels. */
  private void afterEvent() {
    depth++;
    try {
      boolean progress = true;
      while (progress) {
        progress = false;
        for (int i = 0; i < inbound.size(); i++) {
          SimLink l = inbound.get(i);
          while (!l.ended && l.credits > 0 && !l.inbox.isEmpty()) {
            l.credits--;
            InboundFrame frame = l.inbox.poll();
            count(l, frame);
            apply(core.onFrame(l.from, l, frame));
            progress = true;
          }
        }
      }
      inbound.removeIf(l -> l.ended);
      for (Out o : outs.values()) {
        o.flush();
      }
    } finally {
      depth--;
    }
  }

  private void count(SimLink l, InboundFrame frame) {
    if (core.receiver(l.from).stream() != l) {
      return; // a replaced or refused stream: the core ignores it
    }
    if (frame.epoch() < core.epoch()) {
      oldEpochFrames++;
      if (net.tracing()) {
        trace(
            id
                + " in epoch "
                + core.epoch()
                + " gets a frame of epoch "
                + frame.epoch()
                + " on "
                + l
                + " ("
                + frame.items().size()
                + " items from position "
                + frame.items().get(0).position()
                + ")");
      }
    } else if (frame.epoch() == core.epoch()) {
      long delivered = core.receiver(l.from).delivered();
      for (ChannelItem item : frame.items()) {
        if (item.position() <= delivered) {
          duplicateItems++;
        }
      }
    }
  }

  /** A frame (null: a stream's header) arrived on {@code l}. */
  void arrive(SimLink l, InboundFrame frame) {
    if (dead) {
      endByReceiver(l); // the process is gone: the sender's stream fails
      return;
    }
    event(
        () -> {
          if (frame == null) {
            inbound.add(l);
            if (net.tracing()) {
              trace(id + " accepts " + l);
            }
            apply(core.attach(l.from, l));
          } else {
            l.inbox.add(frame);
          }
        });
  }

  /** An ack of {@code l} arrived at this (sending) worker. */
  void acked(SimLink l, long epoch, long position) {
    if (!dead) {
      event(() -> outs.get(l.to).acked(l, epoch, position));
    }
  }

  /** The receiving worker ended {@code l}. */
  private void ended(SimLink l) {
    if (!dead) {
      event(() -> outs.get(l.to).ended(l));
    }
  }

  /** The sending worker ended {@code l}. */
  private void detached(SimLink l) {
    if (!dead) {
      event(() -> apply(core.detach(l.from, l)));
    }
  }

  private void endByReceiver(SimLink l) {
    if (l.ended) {
      return;
    }
    l.ended = true;
    l.inbox.clear();
    net.at(net.now() + net.delay(), () -> l.sender.ended(l));
  }

  private void apply(List<WorkerEffect> effects) {
    for (WorkerEffect e : effects) {
      apply(e);
    }
  }

  /** A turn of the core that the transport runs later: after a seeded delay, if still alive. */
  private void later(java.util.function.Supplier<List<WorkerEffect>> turn) {
    net.at(
        net.now() + net.delay(),
        () -> {
          if (!dead) {
            event(() -> apply(turn.get()));
          }
        });
  }

  private void apply(WorkerEffect effect) {
    if (effect instanceof WorkerEffect.SendData d) {
      outs.get(d.to()).append(new ChannelItem.Data(0, d.seq(), d.payload()));
    } else if (effect instanceof WorkerEffect.DeliverNext d) {
      later(() -> core.deliverNext(d.from()));
    } else if (effect instanceof WorkerEffect.AckLater a) {
      later(() -> core.ackDue(a.from()));
    } else if (effect instanceof WorkerEffect.SendMarker m) {
      outs.get(m.to()).append(new ChannelItem.Mark(0, m.snapshotId(), m.sentCount()));
    } else if (effect instanceof WorkerEffect.Ack a) {
      SimLink l = (SimLink) a.link();
      if (!l.ended) {
        l.back(a.epoch(), a.position());
      }
    } else if (effect instanceof WorkerEffect.Request r) {
      if (r.link() != null) {
        ((SimLink) r.link()).credits += r.frames();
      }
    } else if (effect instanceof WorkerEffect.Refuse r) {
      SimLink l = (SimLink) r.link();
      if (net.tracing()) {
        trace(id + " refuses " + l + ": " + r.refusal().kind() + " " + r.refusal().description());
      }
      listener.refused(this, l.from, r.refusal().kind().name(), r.refusal().description());
      endByReceiver(l);
    } else if (effect instanceof WorkerEffect.Close c) {
      endByReceiver((SimLink) c.link());
    } else if (effect instanceof WorkerEffect.EnterEpoch e) {
      outs.values().forEach(o -> o.startEpoch(e.epoch()));
    } else if (effect instanceof WorkerEffect.Completed c) {
      listener.completed(this, c.snapshot());
    } else if (effect instanceof WorkerEffect.Failed f) {
      listener.failed(this, f.snapshotId(), f.reason());
    } else if (!(effect instanceof WorkerEffect.Renumber
        || effect instanceof WorkerEffect.Resumed
        || effect instanceof WorkerEffect.Captured
        || effect instanceof WorkerEffect.Dropped)) {
      // Renumber: every send is numbered at once here, no claimed send waits to be dropped.
      // Resumed: application sends ask halted() themselves.
      // Captured: the simulated coordinator takes the state with the completed piece.
      // Dropped: nothing was prepared at the capture, so nothing is let go.
      throw new IllegalArgumentException("unknown effect " + effect);
    }
  }

  private void trace(String line) {
    net.trace(net.now() + " " + line);
  }

  /** The sending end of channel {@code this -> to}, as {@code ChannelSender} keeps it. */
  private final class Out {
    final String to;
    long epoch;

    /** Items of the current epoch from position ackedPos + 1 on. */
    final List<ChannelItem> ring = new ArrayList<>();

    long ackedPos;
    long sentPos;
    long lastPos;
    long highestWritten;
    SimLink link;
    boolean resumed;
    boolean reopening;
    int streams;

    Out(String to, long epoch) {
      this.to = to;
      this.epoch = epoch;
    }

    void append(ChannelItem item) {
      long position = ++lastPos;
      ring.add(
          item instanceof ChannelItem.Data d
              ? new ChannelItem.Data(position, d.seq(), d.payload())
              : new ChannelItem.Mark(
                  position,
                  ((ChannelItem.Mark) item).snapshotId(),
                  ((ChannelItem.Mark) item).sentCount()));
    }

    void startEpoch(long newEpoch) {
      epoch = newEpoch;
      ring.clear();
      ackedPos = 0;
      sentPos = 0;
      lastPos = 0;
      highestWritten = 0;
    }

    void open() {
      reopening = false;
      if (dead || link != null) {
        return;
      }
      SimulatedWorker peer = net.current(to);
      if (peer == null) {
        reopenLater();
        return;
      }
      link = new SimLink(SimulatedWorker.this, peer, ++streams);
      if (streams > 1) {
        reconnects++;
      }
      if (net.tracing()) {
        trace(id + " opens " + link + " in epoch " + epoch + " from position " + ackedPos);
      }
      resumed = false;
      sentPos = ackedPos;
      link.forward(null);
      if (ackedPos < lastPos && net.nextInt(100) < options.resendBeforeAckPercent()) {
        resumed = true; // resends at once; the receiver drops what it already has
        flush();
      }
    }

    void reopenLater() {
      if (!reopening) {
        reopening = true;
        net.at(
            net.now() + net.delay(),
            () -> {
              if (!dead) {
                event(this::open);
              }
            });
      }
    }

    void flush() {
      if (link == null || !resumed || link.ended) {
        return;
      }
      while (sentPos < lastPos) {
        int n = (int) Math.min(lastPos - sentPos, options.maxItemsPerFrame());
        int first = (int) (sentPos - ackedPos);
        List<ChannelItem> items = List.copyOf(ring.subList(first, first + n));
        int bytes = 8;
        for (ChannelItem item : items) {
          bytes += item instanceof ChannelItem.Data d ? d.payload().length + 16 : 24;
        }
        if (sentPos < highestWritten) {
          framesResent++;
        }
        framesSent++;
        // a sender asks for an ack at once when it runs short of room; here, at random
        link.forward(new InboundFrame(epoch, items, bytes, net.nextInt(2) == 0));
        sentPos += n;
        highestWritten = Math.max(highestWritten, sentPos);
      }
    }

    void acked(SimLink l, long ackEpoch, long position) {
      if (l != link) {
        return;
      }
      boolean sameEpoch = ackEpoch == epoch;
      if (!resumed) {
        resumed = true;
        if (sameEpoch) {
          trimTo(position);
        }
        sentPos = ackedPos;
        flush();
      } else if (sameEpoch) {
        trimTo(position);
      }
    }

    private void trimTo(long position) {
      if (position <= ackedPos) {
        return;
      }
      if (position > lastPos) {
        listener.problem(
            SimulatedWorker.this,
            "channel "
                + id
                + "->"
                + to
                + ": the receiver acknowledged position "
                + position
                + " of epoch "
                + epoch
                + " but only "
                + lastPos
                + " were sent");
        position = lastPos;
      }
      ring.subList(0, (int) (position - ackedPos)).clear();
      ackedPos = position;
      sentPos = Math.max(sentPos, ackedPos);
    }

    void ended(SimLink l) {
      if (l == link) {
        if (net.tracing()) {
          trace(id + ": " + l + " ended");
        }
        link = null;
        resumed = false;
        reopenLater();
      }
    }

    void breakStream() {
      if (link == null) {
        return;
      }
      SimLink l = link;
      if (net.tracing()) {
        trace(id + " breaks " + l);
      }
      l.ended = true;
      link = null;
      resumed = false;
      if (!dead) {
        reopenLater();
      }
      net.at(net.now() + net.delay(), () -> l.receiver.detached(l));
    }
  }
}
