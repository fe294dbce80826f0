package io.cutpoint.server.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A standby's refusals of worker calls, held back while a refusal would send the worker nowhere
 * useful: while no leader is known, while the leader the election names is the one the worker could
 * not reach (its {@link #UNREACHABLE} header; a killed leader's latch outlives it by the ZooKeeper
 * session timeout), or while this port's own coordinator won and is starting. A held call is
 * refused as soon as the election names a leader the worker can use ({@linkplain #RECHECK
 * re-checked} while any call is held), when this port starts serving ({@link #releaseAll()}), or
 * after {@link #MAX_HOLD}. The worker follows a refusal that names a leader at once, so it re-joins
 * within a re-check of the election, instead of polling every coordinator with a growing backoff.
 *
 * <p>Thread-safe: calls are held from the transport's threads, re-checked and refused on {@code
 * cutpoint-standby-holds}; each held call is closed exactly once.
 */
final class HeldRefusals implements AutoCloseable {

  /** The header a worker sends with the coordinator it last could not reach ({@code HOST:PORT}). */
  static final Metadata.Key<String> UNREACHABLE =
      Metadata.Key.of("cutpoint-unreachable-leader", Metadata.ASCII_STRING_MARSHALLER);

  /** How often held calls are re-checked against the election. */
  static final Duration RECHECK = Duration.ofMillis(50);

  /** The longest a call is held; below a worker's join timeout (10 s by default). */
  static final Duration MAX_HOLD = Duration.ofSeconds(5);

  private record Held(ServerCall<?, ?> call, String unreachable, long since, AtomicBoolean done) {}

  private final LeaderPort.Election election;
  private final long maxHoldNanos;
  private final Map<Long, Held> held = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final ScheduledExecutorService timer;
  private ScheduledFuture<?> recheck; // guarded by this

  HeldRefusals(LeaderPort.Election election, Duration maxHold) {
    this.election = election;
    this.maxHoldNanos = maxHold.toNanos();
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cutpoint-standby-holds");
              t.setDaemon(true);
              return t;
            });
  }

  /** The number of calls held now. */
  int size() {
    return held.size();
  }

  /**
   * Refuses {@code call} at once with the leader's address, or holds it while that address would
   * not help; the listener returned must be the call's.
   */
  <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Metadata headers) {
    String unreachable = headers.get(UNREACHABLE);
    Optional<String> leader = election.leader();
    if (!holds(leader, unreachable)) {
      close(call, leader);
      return new ServerCall.Listener<Q>() {};
    }
    long id = ids.incrementAndGet();
    held.put(id, new Held(call, unreachable, System.nanoTime(), new AtomicBoolean()));
    ensureRecheck();
    return new ServerCall.Listener<Q>() {
      @Override
      public void onCancel() {
        held.remove(id); // the worker gave up, or the port closed
      }
    };
  }

  /** Refuses every held call now, naming the leader: this port serves the coordinator from now. */
  void releaseAll() {
    if (held.isEmpty()) {
      return;
    }
    Optional<String> leader = election.leader();
    for (Long id : held.keySet()) {
      release(id, leader);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    for (Long id : held.keySet()) {
      Held h = held.remove(id);
      if (h != null && h.done().compareAndSet(false, true)) {
        h.call().close(Status.UNAVAILABLE.withDescription("coordinator closing"), new Metadata());
      }
    }
  }

  private boolean holds(Optional<String> leader, String unreachable) {
    return election.starting()
        || leader.isEmpty()
        || (unreachable != null && leader.get().equals(unreachable));
  }

  private synchronized void ensureRecheck() {
    if (recheck == null || recheck.isDone()) {
      try {
        recheck =
            timer.scheduleWithFixedDelay(
                this::recheck, RECHECK.toNanos(), RECHECK.toNanos(), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // close() ends every held call
      }
    }
  }

  /** On {@code cutpoint-standby-holds}: one read of the election for every held call. */
  private void recheck() {
    if (held.isEmpty()) {
      synchronized (this) {
        if (held.isEmpty() && recheck != null) {
          recheck.cancel(false);
          recheck = null;
        }
      }
      return;
    }
    Optional<String> leader = election.leader();
    long now = System.nanoTime();
    held.forEach(
        (id, h) -> {
          if (!holds(leader, h.unreachable()) || now - h.since() >= maxHoldNanos) {
            release(id, leader);
          }
        });
  }

  private void release(Long id, Optional<String> leader) {
    Held h = held.remove(id);
    if (h != null && h.done().compareAndSet(false, true)) {
      close(h.call(), leader);
    }
  }

  private static void close(ServerCall<?, ?> call, Optional<String> leader) {
    call.close(Status.UNAVAILABLE.withDescription(NotLeader.describe(leader)), new Metadata());
  }
}
