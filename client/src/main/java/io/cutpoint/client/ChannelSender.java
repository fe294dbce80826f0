package io.cutpoint.client;

import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.ChannelHeader;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.api.v1.Marker;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending end of one directed channel {@code from -> to}: numbers items with transport
 * positions, keeps every item until the receiver acknowledges it, batches items into frames,
 * respects gRPC flow control, and after a broken stream reopens it with exponential backoff and
 * resends from where the receiver's first ack says it stands.
 *
 * <p>Memory is bounded: at most {@code maxUnackedMessages} data messages and {@code
 * maxUnackedBytes} payload bytes are held (reserved or buffered); an application thread's send
 * waits for room. A handler's send on the event thread goes past the bound instead, and the worker
 * stops reading until the channel is back within it. Markers are never refused (they are few and
 * must not wait behind a full buffer).
 *
 * <p>All state is guarded by this object's monitor. No other lock is taken while holding it.
 */
final class ChannelSender {

  private static final Logger log = LoggerFactory.getLogger(ChannelSender.class);

  /** What a sender needs from its worker. */
  interface Hooks {
    /** True on the worker's event thread. */
    boolean inLoop();

    /** Flush {@code sender} when the event thread runs out of work. Called on the event thread. */
    void flushWhenIdle(ChannelSender sender);

    ScheduledExecutorService timer();

    ManagedChannel newChannel(String address);

    WorkerMetrics metrics();

    /** Application sends were claimed on {@code sender}: let the event thread number them. */
    void claimed(ChannelSender sender);

    /**
     * On the event thread: a handler's send took {@code sender} past its bound ({@code over}), or
     * it is back within it.
     */
    void overdrawn(ChannelSender sender, boolean over);
  }

  private final String from;
  private final String to;
  private final ChannelOptions options;
  private final Hooks hooks;
  private final Runnable flushTask = this::flushIfDirty;

  private final ItemRing ring;
  private long epoch;

  /** Positions up to here were acknowledged and forgotten. */
  private long ackedPos;

  /** Positions up to here were written on the current stream. */
  private long sentPos;

  /** The last position given out. */
  private long lastPos;

  /** Highest position written in this epoch on any stream (to tell resends from first sends). */
  private long highestWritten;

  private int dataItems;
  private long dataBytes;
  private int reservedItems;
  private long reservedBytes;
  private int highWaterMessages;
  private int waiters;
  private boolean dirty;

  /** Application sends claimed (numbered here) that the event thread has not numbered yet. */
  private final java.util.ArrayDeque<byte[]> claims = new java.util.ArrayDeque<>();

  /** The sequence number of the newest claim; the engine's count plus the claims waiting. */
  private long lastClaimedSeq;

  private boolean drainPosted;

  /** A handler's send went past the bound, at {@code overdrawnSince}, and the bound is not met. */
  private boolean overdrawn;

  private long overdrawnSince;
  private boolean halted;
  private boolean closed;

  private String address;
  private ManagedChannel channel;
  private ClientCallStreamObserver<Frame> call;
  private int generation;
  private boolean resumed;
  private final Backoff reconnect;

  ChannelSender(String from, String to, long epoch, ChannelOptions options, Hooks hooks) {
    this.from = from;
    this.to = to;
    this.epoch = epoch;
    this.options = options;
    this.hooks = hooks;
    this.ring = new ItemRing(Math.min(options.maxUnackedMessages(), 4096));
    this.reconnect =
        new Backoff(
            options.reconnectInitial(),
            options.reconnectMax(),
            () -> java.util.concurrent.ThreadLocalRandom.current().nextDouble());
  }

  String to() {
    return to;
  }

  // ---- the application side -------------------------------------------------------------

  /**
   * Reserves room for one message of {@code length} bytes. An application thread waits until the
   * channel has room, and while the worker is halted; the event thread never waits (see {@link
   * #overdraw}; the worker core tells it whether a send of its handlers belongs to an epoch being
   * rolled back). Throws {@link SendTimeoutException}.
   */
  private void reserve(int length, boolean eventThread) {
    long deadline = 0; // read from the clock only once a send has to wait
    boolean timed = false;
    while (true) {
      if (closed) {
        throw new IllegalStateException("worker " + from + " is closed");
      }
      if (halted && !eventThread) {
        // waits for the resume
      } else if (hasRoom(length) || (eventThread && overdraw())) {
        reservedItems++;
        reservedBytes += length;
        highWaterMessages = Math.max(highWaterMessages, dataItems + reservedItems);
        return;
      }
      if (eventThread) {
        throw timedOut();
      }
      if (!timed) {
        deadline = System.nanoTime() + options.sendTimeout().toNanos();
        timed = true;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw timedOut();
      }
      waiters++;
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting to send " + from + "->" + to, e);
      } finally {
        waiters--;
      }
    }
  }

  /**
   * On the event thread, a full channel: a handler's send never waits (the loop is this channel's
   * I/O thread, and the acks that make room arrive there), it goes past the bound, and the worker
   * reads no further frames until the channel has room again ({@link Hooks#overdrawn}). False when
   * the channel has been past its bound for the send timeout: the send times out.
   */
  private boolean overdraw() {
    long now = System.nanoTime();
    if (!overdrawn) {
      overdrawn = true;
      overdrawnSince = now;
      hooks.overdrawn(this, true);
      return true;
    }
    return now - overdrawnSince < options.sendTimeout().toNanos();
  }

  /**
   * After the channel lost messages or bytes: tells the worker when it is back within its bound.
   */
  private void roomAgain() {
    if (overdrawn && hasRoom(0)) {
      overdrawn = false;
      hooks.overdrawn(this, false);
    }
  }

  private SendTimeoutException timedOut() {
    return new SendTimeoutException(
        halted
            ? "send "
                + from
                + "->"
                + to
                + " timed out after "
                + options.sendTimeout()
                + ": the worker is halted for a rollback"
            : "send "
                + from
                + "->"
                + to
                + " timed out after "
                + options.sendTimeout()
                + ": "
                + dataItems
                + " messages ("
                + dataBytes
                + " bytes) unacknowledged, the limit is "
                + options.maxUnackedMessages()
                + " messages / "
                + options.maxUnackedBytes()
                + " bytes; the receiver is slow or unreachable");
  }

  private boolean hasRoom(int length) {
    int items = dataItems + reservedItems;
    return items < options.maxUnackedMessages()
        && (items == 0 || dataBytes + reservedBytes + length <= options.maxUnackedBytes());
  }

  /**
   * An application thread's send, its one hand-off to the event thread: waits for room (and for the
   * end of a rollback), gives {@code copy} the channel's next sequence number, and queues it for
   * the event thread, which numbers the queued sends in order before anything else it sends on this
   * channel. Returns the sequence number.
   */
  synchronized long claim(byte[] copy) {
    reserve(copy.length, false);
    claims.add(copy);
    if (!drainPosted) {
      drainPosted = true;
      hooks.claimed(this);
    }
    return ++lastClaimedSeq;
  }

  /** The sequence number of the newest message sent or queued on this channel. */
  synchronized long claimedCount() {
    return lastClaimedSeq;
  }

  /** On the event thread: the claimed sends waiting, oldest first. */
  synchronized java.util.List<byte[]> takeClaims() {
    drainPosted = false;
    java.util.List<byte[]> taken = new java.util.ArrayList<>(claims);
    claims.clear();
    return taken;
  }

  /**
   * On the event thread, a handler's send: waits for room, then returns the claimed sends waiting
   * followed by {@code payload}, to be numbered in that order.
   */
  synchronized java.util.List<byte[]> claimOnLoop(byte[] payload) {
    reserve(payload.length, true);
    java.util.List<byte[]> taken = new java.util.ArrayList<>(claims.size() + 1);
    taken.addAll(claims);
    taken.add(payload);
    claims.clear();
    lastClaimedSeq++;
    return taken;
  }

  /**
   * The engine's count of data messages sent on this channel is now {@code sent} (a new epoch, a
   * restore): claims not yet numbered belong to the epoch that ended and are dropped.
   */
  synchronized void renumber(long sent) {
    for (byte[] c : claims) {
      reservedItems--;
      reservedBytes -= c.length;
    }
    claims.clear();
    lastClaimedSeq = sent;
    wake();
    roomAgain();
  }

  /**
   * Appends the data messages of {@code sends} (each a {@link WorkerEffect.SendData} to this
   * channel, the caller reserved room for them), in order, under one hold of the monitor: the loop
   * numbers an application thread's sends in batches, and taking the monitor once per message made
   * that thread's next {@code send} wait for it each time. A frame wraps each payload without
   * copying it: it is the worker's own copy, made by {@link Worker#send}, and nothing writes to it
   * afterwards.
   */
  synchronized void appendData(java.util.List<WorkerEffect> sends) {
    for (int i = 0, n = sends.size(); i < n; i++) {
      WorkerEffect.SendData d = (WorkerEffect.SendData) sends.get(i);
      append(d.seq(), d.payload());
    }
  }

  private void append(long seq, byte[] payload) {
    reservedItems--;
    reservedBytes -= payload.length;
    Item item =
        Item.newBuilder()
            .setPosition(++lastPos)
            .setData(
                DataMessage.newBuilder()
                    .setSeq(seq)
                    .setPayload(UnsafeByteOperations.unsafeWrap(payload)))
            .build();
    ring.add(item);
    dataItems++;
    dataBytes += payload.length;
    afterAppend();
  }

  /** Appends a marker, on the worker's loop (a SendMarker effect of the engine). */
  synchronized void appendMarker(long snapshotId, long sentCount) {
    ring.add(
        Item.newBuilder()
            .setPosition(++lastPos)
            .setMarker(Marker.newBuilder().setSnapshotId(snapshotId).setSentCount(sentCount))
            .build());
    afterAppend();
  }

  private void afterAppend() {
    if (lastPos - sentPos >= options.maxItemsPerFrame()) {
      flushLocked();
    } else if (!dirty) {
      dirty = true;
      if (hooks.inLoop()) {
        hooks.flushWhenIdle(this);
      } else {
        hooks.timer().schedule(flushTask, options.linger().toNanos(), TimeUnit.NANOSECONDS);
      }
    }
  }

  synchronized void flushIfDirty() {
    dirty = false;
    flushLocked();
  }

  // ---- rollback ------------------------------------------------------------------------------

  synchronized void setHalted(boolean halted) {
    this.halted = halted;
    wake();
  }

  /** Discards everything of the old epoch; positions restart at 1 in {@code newEpoch}. */
  synchronized void startEpoch(long newEpoch) {
    epoch = newEpoch;
    ring.clear();
    dataItems = 0;
    dataBytes = 0;
    ackedPos = 0;
    sentPos = 0;
    lastPos = 0;
    highestWritten = 0;
    wake();
    roomAgain();
  }

  // ---- the wire ------------------------------------------------------------------------------

  /** Points the channel at {@code newAddress} (no-op when unchanged) and opens a stream. */
  void connect(String newAddress) {
    ManagedChannel old;
    synchronized (this) {
      if (closed || newAddress.equals(address)) {
        return;
      }
      old = channel;
      address = newAddress;
      channel = hooks.newChannel(newAddress);
      generation++;
      if (call != null) {
        call.cancel("the peer moved to " + newAddress, null);
        call = null;
      }
      openStreamLocked();
    }
    if (old != null) {
      old.shutdownNow();
    }
  }

  private void openStreamLocked() {
    if (closed || channel == null) {
      return;
    }
    int g = ++generation;
    resumed = false;
    sentPos = ackedPos;
    ChannelGrpc.newStub(channel).withWaitForReady().open(new AckObserver(g));
    if (call != null && generation == g) {
      call.onNext(
          Frame.newBuilder()
              .setHeader(ChannelHeader.newBuilder().setFrom(from).setTo(to))
              .setEpoch(epoch)
              .build());
      scheduleKick(g, options.reconnectInitial().toNanos());
    }
  }

  /**
   * While a stream waits for its connection, makes gRPC retry the connection on this channel's own
   * backoff (capped at {@code reconnectMax}) instead of gRPC's, which grows to minutes.
   */
  private void scheduleKick(int g, long delayNanos) {
    hooks.timer().schedule(() -> kick(g, delayNanos), delayNanos, TimeUnit.NANOSECONDS);
  }

  private synchronized void kick(int g, long delayNanos) {
    if (closed || g != generation || resumed || channel == null) {
      return;
    }
    channel.resetConnectBackoff();
    long doubled = delayNanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : delayNanos * 2;
    scheduleKick(g, Math.min(doubled, options.reconnectMax().toNanos()));
  }

  private synchronized void onStart(int g, ClientCallStreamObserver<Frame> stream) {
    if (g == generation) {
      call = stream;
    }
  }

  private synchronized void onAck(int g, Ack ack) {
    if (g != generation) {
      return;
    }
    boolean sameEpoch = ack.getEpoch() == epoch;
    long before = ackedPos;
    if (!resumed) {
      resumed = true;
      if (sameEpoch) {
        trimTo(ack.getPosition());
      }
      if (ackedPos == lastPos) {
        reconnect.reset(); // nothing to resend: the stream is as good as a stream gets
      }
      sentPos = ackedPos;
      flushLocked();
    } else if (sameEpoch) {
      trimTo(ack.getPosition());
    }
    if (ackedPos > before) {
      // Progress, not a stream's first ack: a receiver that refuses what it is resent after
      // acknowledging the stream (a frame too large for it, an epoch not announced) keeps the
      // backoff growing instead of being retried every few milliseconds.
      reconnect.reset();
    }
  }

  private void trimTo(long position) {
    if (position <= ackedPos) {
      return;
    }
    if (position > lastPos) {
      log.warn(
          "channel {}->{}: receiver acknowledged position {} but only {} were sent in epoch {}",
          from,
          to,
          position,
          lastPos,
          epoch);
      position = lastPos;
    }
    int n = (int) (position - ackedPos);
    for (int i = 0; i < n; i++) {
      Item item = ring.get(i);
      if (item.hasData()) {
        dataItems--;
        dataBytes -= item.getData().getPayload().size();
      }
    }
    ring.dropFirst(n);
    ackedPos = position;
    sentPos = Math.max(sentPos, ackedPos);
    wake();
    roomAgain();
  }

  private void onReady(int g) {
    synchronized (this) {
      if (g == generation) {
        flushLocked();
      }
    }
  }

  private synchronized void onStreamEnd(int g, Throwable error) {
    if (g != generation) {
      return;
    }
    call = null;
    resumed = false;
    if (closed) {
      return;
    }
    long delay = reconnect.next().toNanos();
    Status.Code code = error == null ? Status.Code.OK : Status.fromThrowable(error).getCode();
    if (code == Status.Code.RESOURCE_EXHAUSTED) {
      log.warn(
          "channel {}->{}: the receiver refused a frame as too large ({}): a message larger than"
              + " its maxPayloadBytes allows? Every worker must allow as much as its peers send;"
              + " retrying in {} ms",
          from,
          to,
          error,
          delay / 1_000_000);
    } else if (code == Status.Code.INVALID_ARGUMENT
        || code == Status.Code.UNIMPLEMENTED
        || code == Status.Code.DATA_LOSS) {
      log.warn(
          "channel {}->{}: the receiver refused the stream ({}); retrying in {} ms",
          from,
          to,
          error,
          delay / 1_000_000);
    } else {
      log.debug(
          "channel {}->{}: stream ended ({}); reopening in {} ms",
          from,
          to,
          error == null ? "completed" : error.toString(),
          delay / 1_000_000);
    }
    int expected = generation;
    hooks.timer().schedule(() -> reopen(expected), delay, TimeUnit.NANOSECONDS);
  }

  private synchronized void reopen(int expected) {
    if (closed || expected != generation || call != null) {
      return;
    }
    hooks.metrics().reconnect();
    channel.resetConnectBackoff();
    openStreamLocked();
  }

  /** Writes frames while the stream is ready and items are unsent. */
  private void flushLocked() {
    ClientCallStreamObserver<Frame> c = call;
    if (c == null || !resumed) {
      return;
    }
    while (sentPos < lastPos && c.isReady()) {
      Frame.Builder frame = Frame.newBuilder().setEpoch(epoch);
      boolean resend = sentPos < highestWritten;
      int index = (int) (sentPos - ackedPos);
      int items = 0;
      long bytes = 0;
      while (sentPos < lastPos
          && items < options.maxItemsPerFrame()
          && bytes < options.maxFrameBytes()) {
        Item item = ring.get(index++);
        if (items > 0
            && item.hasData()
            && bytes + item.getData().getPayload().size() > options.maxFrameBytes()) {
          break;
        }
        frame.addItems(item);
        bytes += item.hasData() ? item.getData().getPayload().size() : 16;
        items++;
        sentPos++;
      }
      highestWritten = Math.max(highestWritten, sentPos);
      c.onNext(frame.setAckNow(wantsAckNow()).build());
      hooks.metrics().frameSent(resend);
    }
  }

  /**
   * Whether the frame being written asks to be acknowledged at once: a send waits for room, or what
   * the channel holds unacknowledged reached half its bound. Otherwise the receiver acknowledges it
   * a little later, together with the frames that follow, which spares an idle or lightly used
   * channel one ack per frame; the half of the bound still free covers that delay.
   */
  private boolean wantsAckNow() {
    return waiters > 0
        || overdrawn
        || 2L * (dataItems + reservedItems) >= options.maxUnackedMessages()
        || 2L * (dataBytes + reservedBytes) >= options.maxUnackedBytes();
  }

  private void wake() {
    if (waiters > 0) {
      notifyAll();
    }
  }

  // ---- introspection and shutdown -----------------------------------------------------------

  /** The items held unacknowledged, oldest first (for tests). */
  synchronized java.util.List<Item> bufferedItems() {
    java.util.List<Item> out = new java.util.ArrayList<>(ring.size());
    for (int i = 0; i < ring.size(); i++) {
      out.add(ring.get(i));
    }
    return out;
  }

  /** Data messages held (buffered unacknowledged plus reserved). */
  synchronized int bufferedMessages() {
    return dataItems + reservedItems;
  }

  /** The most data messages ever held at once. */
  synchronized int highWaterMessages() {
    return highWaterMessages;
  }

  /** True when every item given a position was acknowledged. */
  synchronized boolean allAcknowledged() {
    return ackedPos == lastPos;
  }

  /** Stops the channel; waiting senders fail. Returns the gRPC channel to await, or null. */
  synchronized ManagedChannel close() {
    closed = true;
    generation++;
    if (call != null) {
      call.cancel("worker " + from + " is closing", null);
      call = null;
    }
    wake();
    ManagedChannel c = channel;
    channel = null;
    if (c != null) {
      c.shutdownNow();
    }
    return c;
  }

  private final class AckObserver implements ClientResponseObserver<Frame, Ack> {
    private final int generationOfStream;

    AckObserver(int generationOfStream) {
      this.generationOfStream = generationOfStream;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<Frame> requestStream) {
      requestStream.setOnReadyHandler(() -> onReady(generationOfStream));
      onStart(generationOfStream, requestStream);
    }

    @Override
    public void onNext(Ack ack) {
      onAck(generationOfStream, ack);
    }

    @Override
    public void onError(Throwable t) {
      onStreamEnd(generationOfStream, t);
    }

    @Override
    public void onCompleted() {
      onStreamEnd(generationOfStream, null);
    }
  }
}
