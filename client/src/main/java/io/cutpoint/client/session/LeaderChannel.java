package io.cutpoint.client.session;

import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A channel to whichever of several coordinators leads. Each call goes to the current address; a
 * call that ends UNAVAILABLE moves the next call to the leader that the refusal names ("not the
 * leader; the leader is HOST:PORT"), or, without a name, to the next address in turn. A {@link
 * CoordinatorSession} over it re-joins after a failover as it re-joins after any lost stream,
 * without the worker restarting; it follows a refusal that names a leader at once ({@link
 * #redirect}).
 *
 * <p>A coordinator that could not be reached (the call ended UNAVAILABLE without a standby's
 * refusal: the connection failed or broke) is named in the {@value #UNREACHABLE_HEADER} header of
 * the calls to the others, until one answers. A standby that the election still tells that the same
 * coordinator leads (a killed leader keeps its place until its ZooKeeper session expires) holds the
 * refusal back until a new leader is elected, and then names it, so that the worker re-joins as
 * soon as the new leader serves rather than at its next backoff.
 *
 * <p>Thread-safe. Owns one channel per address it used; {@link #shutdown()} closes them all.
 */
public final class LeaderChannel extends ManagedChannel {
  private static final Logger log = LoggerFactory.getLogger(LeaderChannel.class);

  /** The start of a standby's refusal; the leader's address follows it. */
  static final String NOT_LEADER = "not the leader; the leader is ";

  /** The start of every standby's refusal, naming a leader or none. */
  static final String REFUSAL = "not the leader";

  /** The header naming the coordinator this channel could not reach (the server reads it too). */
  static final String UNREACHABLE_HEADER = "cutpoint-unreachable-leader";

  private static final Metadata.Key<String> UNREACHABLE =
      Metadata.Key.of(UNREACHABLE_HEADER, Metadata.ASCII_STRING_MARSHALLER);

  /**
   * A stream silent this long is pinged (gRPC's shortest keepalive), and broken when the ping has
   * no answer within {@link #KEEPALIVE_TIMEOUT_SECONDS}: a leader that froze (a stopped process, a
   * dead host whose connection never closed) then ends its workers' streams, and they move on to
   * its successor. The coordinators accept the pings ({@code KeepAlivePermit}).
   */
  static final long KEEPALIVE_SECONDS = 10;

  static final long KEEPALIVE_TIMEOUT_SECONDS = 5;

  private final List<String> seeds;
  private final Function<String, ManagedChannel> open;
  private final Map<String, ManagedChannel> channels = new LinkedHashMap<>(); // guarded by this
  private String current; // guarded by this
  private int next; // guarded by this: the seed after current
  private boolean shutdown; // guarded by this
  private String unreachable; // guarded by this: the last address not reached, until one answers

  LeaderChannel(List<String> addresses, Function<String, ManagedChannel> open) {
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("at least one coordinator address is needed");
    }
    this.seeds = List.copyOf(addresses);
    this.open = open;
    this.current = seeds.get(0);
    this.next = 1 % seeds.size();
  }

  /**
   * A channel over {@code addresses} ({@code host:port}, tried in turn) with {@code credentials}.
   */
  public static LeaderChannel forAddresses(List<String> addresses, ChannelCredentials credentials) {
    return forAddresses(addresses, a -> Grpc.newChannelBuilder(a, credentials));
  }

  /**
   * A channel over {@code addresses}, each built by {@code builders} (for a worker's session,
   * {@link io.cutpoint.client.WorkerControl#coordinatorChannel}: on the worker's event loop), with
   * the keepalive that notices a frozen leader.
   */
  public static LeaderChannel forAddresses(
      List<String> addresses, Function<String, ManagedChannelBuilder<?>> builders) {
    return new LeaderChannel(
        addresses,
        a ->
            builders
                .apply(a)
                .keepAliveTime(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                .keepAliveTimeout(KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .keepAliveWithoutCalls(true)
                .build());
  }

  /** The address the next call goes to. */
  public synchronized String current() {
    return current;
  }

  private synchronized ManagedChannel channel(String address) {
    if (shutdown) {
      throw new IllegalStateException("channel shut down");
    }
    return channels.computeIfAbsent(address, open);
  }

  /**
   * True if {@code status} is a standby's refusal that names the leader: the caller may try again
   * at once, since the standby held the refusal back while no useful leader was known.
   */
  public static boolean redirect(Status status) {
    return status.getCode() == Status.Code.UNAVAILABLE
        && leaderIn(status.getDescription()).isPresent();
  }

  /** The coordinator whose last call ended without reaching it, while no other one answered. */
  synchronized Optional<String> unreachable() {
    return Optional.ofNullable(unreachable);
  }

  /** A coordinator answered a call: whatever was unreachable before is no longer the point. */
  private synchronized void answered() {
    unreachable = null;
  }

  /** Moves on after a call to {@code address} ended with {@code status}. */
  synchronized void ended(String address, Status status) {
    if (status.getCode() != Status.Code.UNAVAILABLE || !address.equals(current)) {
      return;
    }
    Optional<String> leader = leaderIn(status.getDescription());
    String description = status.getDescription();
    if (description == null || !description.startsWith(REFUSAL)) {
      unreachable = address; // the connection failed or broke: the standbys hear of it
    }
    String to;
    if (leader.isPresent() && !leader.get().equals(address)) {
      to = leader.get();
    } else if (leader.isEmpty()) {
      to = seeds.get(next);
      next = (next + 1) % seeds.size();
    } else {
      return; // the leader names itself: it is starting, try it again
    }
    if (!to.equals(current)) {
      log.info(
          "coordinator {} is unavailable ({}); trying {}", current, status.getDescription(), to);
      current = to;
    }
  }

  /** The leader's address that a standby's refusal names, if it names one. */
  public static Optional<String> leaderIn(String description) {
    if (description == null || !description.startsWith(NOT_LEADER)) {
      return Optional.empty();
    }
    String a = description.substring(NOT_LEADER.length()).trim();
    return a.isEmpty() ? Optional.empty() : Optional.of(a);
  }

  @Override
  public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
    String address = current();
    Optional<String> lost = unreachable().filter(a -> !a.equals(address));
    ClientCall<Q, R> call = channel(address).newCall(method, options);
    return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(call) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        lost.ifPresent(a -> headers.put(UNREACHABLE, a));
        super.start(
            new ForwardingClientCallListener.SimpleForwardingClientCallListener<R>(listener) {
              @Override
              public void onHeaders(Metadata responseHeaders) {
                answered();
                super.onHeaders(responseHeaders);
              }

              @Override
              public void onClose(Status status, Metadata trailers) {
                ended(address, status);
                super.onClose(status, trailers);
              }
            },
            headers);
      }
    };
  }

  @Override
  public String authority() {
    return channel(current()).authority();
  }

  private synchronized List<ManagedChannel> all() {
    return new ArrayList<>(channels.values());
  }

  @Override
  public ManagedChannel shutdown() {
    synchronized (this) {
      shutdown = true;
    }
    all().forEach(ManagedChannel::shutdown);
    return this;
  }

  @Override
  public boolean isShutdown() {
    synchronized (this) {
      return shutdown;
    }
  }

  @Override
  public boolean isTerminated() {
    return isShutdown() && all().stream().allMatch(ManagedChannel::isTerminated);
  }

  @Override
  public ManagedChannel shutdownNow() {
    synchronized (this) {
      shutdown = true;
    }
    all().forEach(ManagedChannel::shutdownNow);
    return this;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    for (ManagedChannel c : all()) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || !c.awaitTermination(left, TimeUnit.NANOSECONDS)) {
        return false;
      }
    }
    return true;
  }
}
