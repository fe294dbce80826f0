package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.CoordinatorGrpc;
import io.grpc.BindableService;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.ForwardingServerCallListener;
import io.grpc.HandlerRegistry;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.File;
import java.io.IOException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC port that the coordinators of successive leader terms take in turn. Between terms (and
 * before the first) it serves a standby: {@link NotLeader}'s refusals and a health service that
 * reports NOT_SERVING for the whole server and each coordinator service. {@link #builder(long)}
 * gives a {@link ServerBuilder} for {@code CoordinatorServer.start}: the {@link Server} it builds
 * installs its services on this port when started and gives the port back to the standby when shut
 * down, so the coordinator runs unchanged, and workers keep one address.
 *
 * <p>Thread-safe; the services swap in one volatile write.
 */
public final class LeaderPort extends HandlerRegistry implements AutoCloseable {

  /** What the port's standby knows of the election. */
  public interface Election {
    /** The leader's {@code HOST:PORT} as the election names it now, if any; any thread. */
    Optional<String> leader();

    /** True while this port's coordinator has won the election but does not serve yet. */
    boolean starting();
  }

  private final Server server;
  private final Server local;
  private final io.grpc.ManagedChannel localChannel;
  private final HealthStatusManager standbyHealth = new HealthStatusManager();
  private final Map<String, ServerMethodDefinition<?, ?>> standby;
  private final HeldRefusals held;
  private volatile Map<String, ServerMethodDefinition<?, ?>> methods;
  private TermServer current; // guarded by this

  private LeaderPort(ServerBuilder<?> builder, Election election, Duration maxHold)
      throws IOException {
    for (String name :
        List.of(
            HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
            CoordinatorGrpc.SERVICE_NAME,
            AdminGrpc.SERVICE_NAME)) {
      standbyHealth.setStatus(name, ServingStatus.NOT_SERVING);
    }
    this.held = new HeldRefusals(election, maxHold);
    List<ServerServiceDefinition> services =
        new ArrayList<>(NotLeader.services(election::leader, held));
    services.add(standbyHealth.getHealthService().bindService());
    this.standby = index(services);
    this.methods = standby;
    String name = "cutpoint-leader-port-" + System.identityHashCode(this) + "-" + System.nanoTime();
    this.local =
        io.grpc.inprocess.InProcessServerBuilder.forName(name)
            .fallbackHandlerRegistry(this)
            .build()
            .start();
    if (builder instanceof io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder netty) {
      CallThreads.handOffFreeOnTransport(netty); // as on a single coordinator's port
      KeepAlivePermit.apply(netty); // workers ping the leader to notice one that froze
    }
    try {
      this.server = builder.fallbackHandlerRegistry(this).build().start();
    } catch (IOException | RuntimeException e) {
      local.shutdownNow();
      held.close();
      throw e;
    }
    this.localChannel = io.grpc.inprocess.InProcessChannelBuilder.forName(name).build();
  }

  /**
   * A channel to this port inside the process (for the HTTP API): the leader's services, or the
   * standby's refusals, as over the network. Closed by {@link #close()}.
   */
  public io.grpc.Channel localChannel() {
    return localChannel;
  }

  /**
   * Opens the port of {@code builder} (Netty in production, in-process in tests) with the standby
   * on it.
   *
   * @param election the leader's {@code HOST:PORT} for the standby's refusals, asked at every call,
   *     and whether this port's coordinator is starting
   */
  public static LeaderPort start(ServerBuilder<?> builder, Election election) throws IOException {
    return new LeaderPort(builder, election, HeldRefusals.MAX_HOLD);
  }

  /**
   * As {@link #start(ServerBuilder, Election)}, holding a worker's call at most {@code maxHold}.
   */
  static LeaderPort start(ServerBuilder<?> builder, Election election, Duration maxHold)
      throws IOException {
    return new LeaderPort(builder, election, maxHold);
  }

  @Override
  public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
    return methods.get(methodName);
  }

  @Override
  public List<ServerServiceDefinition> getServices() {
    return List.of();
  }

  /**
   * A builder of the server of the leader of {@code term} on this port; every message its
   * Coordinator service sends a worker carries the term ({@link TermStamp}).
   */
  public ServerBuilder<?> builder(long term) {
    TermBuilder b = new TermBuilder();
    b.stamp = new TermStamp(term);
    return b;
  }

  /** True while a leader's services are on the port. */
  public synchronized boolean leading() {
    return current != null;
  }

  public int port() {
    return server.getPort();
  }

  public List<? extends SocketAddress> listenAddresses() {
    return server.getListenSockets();
  }

  /** Closes the port: refuses new calls, waits 5 s for those in progress, then ends them. */
  @Override
  public void close() {
    held.close();
    standbyHealth.enterTerminalState();
    localChannel.shutdownNow();
    local.shutdownNow();
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void install(TermServer s, Map<String, ServerMethodDefinition<?, ?>> m)
      throws IOException {
    if (current != null) {
      throw new IOException("the port already serves the coordinator of another leader term");
    }
    current = s;
    methods = m;
  }

  private synchronized void uninstall(TermServer s) {
    if (current == s) {
      current = null;
      methods = standby;
    }
  }

  private static Map<String, ServerMethodDefinition<?, ?>> index(
      List<ServerServiceDefinition> services) {
    Map<String, ServerMethodDefinition<?, ?>> m = new HashMap<>();
    for (ServerServiceDefinition s : services) {
      for (ServerMethodDefinition<?, ?> d : s.getMethods()) {
        m.put(d.getMethodDescriptor().getFullMethodName(), d);
      }
    }
    return Map.copyOf(m);
  }

  /** Collects a coordinator's services and interceptors; the transport is the port's. */
  private final class TermBuilder extends ServerBuilder<TermBuilder> {
    private final List<ServerServiceDefinition> services = new ArrayList<>();
    private final List<ServerInterceptor> interceptors = new ArrayList<>();
    private TermStamp stamp;

    @Override
    public TermBuilder addService(ServerServiceDefinition service) {
      services.add(service);
      return this;
    }

    @Override
    public TermBuilder addService(BindableService bindableService) {
      return addService(bindableService.bindService());
    }

    @Override
    public TermBuilder intercept(ServerInterceptor interceptor) {
      interceptors.add(interceptor);
      return this;
    }

    /** The port's own limit applies; the coordinator asks for the same one. */
    @Override
    public TermBuilder maxInboundMessageSize(int bytes) {
      return this;
    }

    @Override
    public TermBuilder directExecutor() {
      throw unsupported("directExecutor");
    }

    @Override
    public TermBuilder executor(Executor executor) {
      throw unsupported("executor");
    }

    @Override
    public TermBuilder fallbackHandlerRegistry(HandlerRegistry fallbackRegistry) {
      throw unsupported("fallbackHandlerRegistry");
    }

    @Override
    public TermBuilder useTransportSecurity(File certChain, File privateKey) {
      throw unsupported("useTransportSecurity");
    }

    @Override
    public TermBuilder decompressorRegistry(DecompressorRegistry registry) {
      throw unsupported("decompressorRegistry");
    }

    @Override
    public TermBuilder compressorRegistry(CompressorRegistry registry) {
      throw unsupported("compressorRegistry");
    }

    @Override
    public Server build() {
      TermServer s = new TermServer();
      List<ServerInterceptor> all = new ArrayList<>(interceptors);
      all.add(0, stamp); // next to the handler: stamps what it sends
      all.add(1, s.calls); // counts the calls of this term
      List<ServerServiceDefinition> wrapped = new ArrayList<>();
      for (ServerServiceDefinition d : services) {
        wrapped.add(ServerInterceptors.intercept(d, all));
      }
      s.methods = index(wrapped);
      s.services = List.copyOf(services);
      return s;
    }

    private UnsupportedOperationException unsupported(String what) {
      return new UnsupportedOperationException(
          what + " is set on the leader port's own builder, not per leader term");
    }
  }

  /** One leader term's server: its services on the port from start to shutdown. */
  private final class TermServer extends Server {
    private final CallCount calls = new CallCount();
    private Map<String, ServerMethodDefinition<?, ?>> methods;
    private List<ServerServiceDefinition> services;
    private volatile boolean started;
    private volatile boolean shutdown;

    @Override
    public Server start() throws IOException {
      if (started) {
        throw new IllegalStateException("already started");
      }
      install(this, methods);
      started = true;
      held.releaseAll(); // the workers it held join this term's coordinator now
      return this;
    }

    @Override
    public int getPort() {
      return port();
    }

    @Override
    public List<? extends SocketAddress> getListenSockets() {
      return listenAddresses();
    }

    @Override
    public List<ServerServiceDefinition> getServices() {
      return services;
    }

    @Override
    public Server shutdown() {
      shutdown = true;
      uninstall(this);
      calls.stopped();
      return this;
    }

    /** Gives the port back at once; calls still running end with the coordinator's parts. */
    @Override
    public Server shutdownNow() {
      shutdown();
      calls.forget();
      return this;
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown && calls.none();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return calls.awaitNone(unit.toNanos(timeout));
    }

    @Override
    public void awaitTermination() throws InterruptedException {
      calls.awaitNone(Long.MAX_VALUE);
    }
  }

  /** Counts the calls of one term in progress, so that its server's termination can be awaited. */
  private static final class CallCount implements ServerInterceptor {
    private int active; // guarded by this
    private boolean stopped; // guarded by this

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      synchronized (this) {
        active++;
      }
      ServerCall.Listener<Q> delegate;
      try {
        delegate = next.startCall(call, headers);
      } catch (RuntimeException e) {
        ended();
        throw e;
      }
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<Q>(delegate) {
        @Override
        public void onComplete() {
          try {
            super.onComplete();
          } finally {
            ended();
          }
        }

        @Override
        public void onCancel() {
          try {
            super.onCancel();
          } finally {
            ended();
          }
        }
      };
    }

    private synchronized void ended() {
      active--;
      notifyAll();
    }

    synchronized void stopped() {
      stopped = true;
      notifyAll();
    }

    synchronized void forget() {
      active = 0;
      notifyAll();
    }

    synchronized boolean none() {
      return active <= 0;
    }

    synchronized boolean awaitNone(long nanos) throws InterruptedException {
      long deadline = System.nanoTime() + nanos;
      while (!(stopped && active <= 0)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }
}
