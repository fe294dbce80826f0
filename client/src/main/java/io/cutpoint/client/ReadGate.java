package io.cutpoint.client;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A worker's backpressure on its handlers' sends. A handler's send never waits for room (the event
 * loop is the channels' I/O thread: waiting there would stop the acks that make room); when it
 * takes an outgoing channel past its bound, the worker holds back its requests for more inbound
 * frames, so its senders fill up and wait, until every channel is back within its bound. Reading
 * resumes anyway after {@code maxHold} (the send timeout), so that workers whose handlers only send
 * to each other cannot stop each other for good: their handlers' sends into a channel past its
 * bound for that long then time out, as an application thread's send does.
 *
 * <p>Confined to the worker's event loop.
 */
final class ReadGate {

  private final Executor loop;
  private final Supplier<ScheduledExecutorService> timer;
  private final long maxHoldNanos;
  private final Set<ChannelSender> overdrawn = new HashSet<>();
  private final Map<InboundStream, Integer> held = new LinkedHashMap<>();
  private ScheduledFuture<?> expiry;

  /** The longest hold passed with these channels past their bound: requests go out again. */
  private boolean expired;

  /**
   * A gate whose releases run on {@code loop}, and whose held requests go out after {@code maxHold}
   * on {@code timer}.
   */
  ReadGate(Executor loop, Supplier<ScheduledExecutorService> timer, Duration maxHold) {
    this.loop = loop;
    this.timer = timer;
    this.maxHoldNanos = maxHold.toNanos();
  }

  /** Asks {@code stream} for {@code frames} more frames, now or once the gate opens. */
  void request(InboundStream stream, int frames) {
    if (overdrawn.isEmpty() || expired) {
      stream.request(frames);
      return;
    }
    held.merge(stream, frames, Integer::sum);
    if (expiry == null) {
      expiry =
          timer
              .get()
              .schedule(() -> loop.execute(this::expire), maxHoldNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** {@code sender} went past its bound ({@code over}) or is back within it. */
  void overdrawn(ChannelSender sender, boolean over) {
    if (over) {
      if (overdrawn.add(sender)) {
        expired = false; // a channel newly past its bound holds again
      }
    } else if (overdrawn.remove(sender) && overdrawn.isEmpty()) {
      expired = false;
      // After the ack that made room is handled: a request may deliver a frame at once.
      loop.execute(this::openIfRoom);
    }
  }

  private void openIfRoom() {
    if (overdrawn.isEmpty()) {
      open();
    }
  }

  private void expire() {
    expired = !overdrawn.isEmpty();
    open();
  }

  /** Sends the held requests. */
  private void open() {
    if (expiry != null) {
      expiry.cancel(false);
      expiry = null;
    }
    Map<InboundStream, Integer> requests = new LinkedHashMap<>(held);
    held.clear();
    requests.forEach(InboundStream::request);
  }
}
