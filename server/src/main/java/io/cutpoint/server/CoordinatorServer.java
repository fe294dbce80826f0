package io.cutpoint.server;

import io.cutpoint.api.BoundedStatusDescriptions;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.server.analysis.ContinuousAnalysis;
import io.cutpoint.server.analysis.SnapshotAnalyzer;
import io.cutpoint.server.events.EventHub;
import io.cutpoint.server.events.SnapshotEvents;
import io.cutpoint.server.grpc.AdminService;
import io.cutpoint.server.grpc.CallThreads;
import io.cutpoint.server.grpc.CoordinatorService;
import io.cutpoint.server.grpc.KeepAlivePermit;
import io.cutpoint.server.grpc.SessionRegistry;
import io.cutpoint.server.lifecycle.Coalescer;
import io.cutpoint.server.lifecycle.CompletedSnapshot;
import io.cutpoint.server.lifecycle.ExecutorScheduler;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.lifecycle.SnapshotLifecycle;
import io.cutpoint.server.lifecycle.SnapshotListener;
import io.cutpoint.server.lifecycle.StoreExecutor;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.metrics.CoordinatorMetrics;
import io.cutpoint.server.security.AdminTokenInterceptor;
import io.cutpoint.server.security.WorkerIdentity;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import io.grpc.Channel;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running coordinator: the gRPC services (Coordinator, Admin, health, reflection) over one
 * snapshot store, periodic snapshots, heartbeat checks, retention and analysis after each commit.
 *
 * <p>Threads: the coordinator loop ({@code cutpoint-coordinator}) owns membership, the snapshot
 * lifecycle, the rollback and the schedule, and runs the timers; the store executor ({@code
 * cutpoint-store}) performs their store writes in order; {@code cutpoint-maintenance} watches the
 * store, applies retention after commits and analyses the newest snapshot committed, each at most
 * once per {@link #MAINTENANCE_SPACING}; {@code cutpoint-transfer-N} serve downloads; gRPC's own
 * threads run the handlers, which post to the loop.
 */
public final class CoordinatorServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CoordinatorServer.class);

  /**
   * Largest inbound message (16 MiB); a bigger one fails with RESOURCE_EXHAUSTED before any service
   * sees it. A state chunk is at most 1 MiB, but a channel recording part carries at least one
   * whole recorded message, and a worker's payloads may be 4 MiB by default ({@code
   * ChannelOptions.maxPayloadBytes}), so 16 MiB leaves room for larger configured payloads.
   */
  public static final int MAX_INBOUND_MESSAGE_BYTES = 16 << 20;

  private final CoordinatorContext ctx;
  private final Server server;
  private final HealthStatusManager health;
  private final ExecutorScheduler scheduler;
  private final ExecutorScheduler maintenance;

  /**
   * The least time between two runs of retention, and of the analysis, after commits: snapshots
   * that commit faster are handled together (one pass over the manifests and one sync of the
   * deletions for several; the newest analysed). Under periodic snapshots (every 10 s by default)
   * each commit still gets its run at once.
   */
  static final Duration MAINTENANCE_SPACING = Duration.ofMillis(250);

  private final AtomicBoolean closed = new AtomicBoolean();
  private final java.util.concurrent.ExecutorService transfers;
  private final StoreWatch storeWatch;

  /**
   * Downloads served at once. Each has a thread of its own (a stalled receiver holds only its own,
   * until the download timeout ends it); more wait for a thread in arrival order, as many as the
   * workers allowed (a rollback of every worker at once, each downloading its piece), and any
   * beyond that are refused with RESOURCE_EXHAUSTED.
   */
  public static final int MAX_DOWNLOADS = 256;

  /**
   * The Admin service again, token check included, for callers inside this process (the HTTP API).
   */
  private final Server local;

  private final ManagedChannel localChannel;

  private CoordinatorServer(
      CoordinatorContext ctx,
      Server server,
      Server local,
      String localName,
      HealthStatusManager health,
      ExecutorScheduler scheduler,
      ExecutorScheduler maintenance,
      java.util.concurrent.ExecutorService transfers) {
    this.transfers = transfers;
    this.local = local;
    this.localChannel = InProcessChannelBuilder.forName(localName).build();
    this.ctx = ctx;
    this.server = server;
    this.health = health;
    this.scheduler = scheduler;
    this.maintenance = maintenance;
    this.storeWatch =
        new StoreWatch(
            ctx.store(),
            health,
            reason ->
                ctx.loop()
                    .execute(() -> ctx.lifecycle().abortAll(FailureReason.STORE_ERROR, reason)),
            ctx.storeIo()::retryUnfinished);
  }

  /**
   * Starts on Netty at {@code config.port()} (0 = ephemeral) over a RocksDB store in the data dir;
   * with TLS (and mutual TLS) when {@link CoordinatorConfig#tls()} is set.
   */
  public static CoordinatorServer start(CoordinatorConfig config, MeterRegistry registry)
      throws IOException {
    NettyServerBuilder netty = netty(config);
    Files.createDirectories(config.dataDir());
    SnapshotStore store = RocksSnapshotStore.open(config.dataDir());
    try {
      return start(config, registry, netty, store);
    } catch (RuntimeException e) {
      store.close();
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw e;
    }
  }

  /**
   * A Netty server builder for {@code config.port()} on {@link CoordinatorConfig#bindHost()}, with
   * TLS (and mutual TLS) when {@link CoordinatorConfig#tls()} is set.
   *
   * @throws io.cutpoint.server.security.TlsSetupException if the TLS files are unusable
   */
  public static NettyServerBuilder netty(CoordinatorConfig config) throws IOException {
    ServerCredentials credentials =
        config.tls() == null
            ? InsecureServerCredentials.create()
            : config.tls().serverCredentials();
    try {
      return NettyServerBuilder.forAddress(
          new InetSocketAddress(config.bindHost(), config.port()), credentials);
    } catch (IllegalArgumentException e) {
      throw new io.cutpoint.server.security.TlsSetupException(
          "cannot serve TLS with certificate chain "
              + config.tls().certChain()
              + ", private key "
              + config.tls().privateKey()
              + " and client CA "
              + config.tls().clientCa()
              + " (PEM certificates and a PKCS#8 PEM key expected): "
              + e.getMessage(),
          e);
    }
  }

  /** Starts on {@code serverBuilder} (tests pass an in-process builder) over {@code store}. */
  public static CoordinatorServer start(
      CoordinatorConfig config,
      MeterRegistry registry,
      ServerBuilder<?> serverBuilder,
      SnapshotStore store) {
    return start(
        config,
        registry,
        serverBuilder,
        store,
        io.cutpoint.server.rollback.RollbackCoordinator.factory());
  }

  /**
   * As {@link #start(CoordinatorConfig, MeterRegistry, ServerBuilder, SnapshotStore)}, with
   * rollback.
   */
  public static CoordinatorServer start(
      CoordinatorConfig config,
      MeterRegistry registry,
      ServerBuilder<?> serverBuilder,
      SnapshotStore store,
      RollbackService.Factory rollbackFactory) {
    Clock clock = Clock.systemUTC();
    ExecutorScheduler scheduler =
        new ExecutorScheduler("cutpoint-coordinator"); // the coordinator loop
    ExecutorScheduler maintenance = new ExecutorScheduler("cutpoint-maintenance");
    StoreExecutor storeIo = new StoreExecutor(store, scheduler);
    Membership membership = new Membership(config.limits().maxWorkers());
    SessionRegistry sessions = new SessionRegistry();
    EventHub events = new EventHub(clock, () -> safeEpoch(store));
    CoordinatorMetrics metrics = new CoordinatorMetrics(registry, clock, membership::count);
    java.util.concurrent.ThreadPoolExecutor transfers =
        new java.util.concurrent.ThreadPoolExecutor(
            MAX_DOWNLOADS,
            MAX_DOWNLOADS,
            30,
            TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(config.limits().maxWorkers()),
            daemon("cutpoint-transfer"));
    transfers.allowCoreThreadTimeOut(true);
    Server local = null;
    Server server = null;
    CoordinatorServer cs = null;
    try {
      SnapshotAnalyzer analyzer = new SnapshotAnalyzer(store);
      ContinuousAnalysis analysis =
          new ContinuousAnalysis(
              analyzer, maintenance, clock, MAINTENANCE_SPACING, analysisEvents(events));
      Coalescer retention =
          new Coalescer(
              maintenance,
              clock,
              MAINTENANCE_SPACING,
              () -> {
                try {
                  retain(store, config.retainCompleteSnapshots(), events, metrics);
                } catch (RuntimeException e) {
                  if (Thread.currentThread().isInterrupted()) {
                    log.debug("retention stopped: the coordinator is closing");
                  } else if (e instanceof CorruptionException) {
                    log.error(
                        "retention stopped at damaged data: {}; snapshots over the limit stay until"
                            + " it is mended ('cutpoint store check' names the damage and"
                            + " 'cutpoint store repair' mends it, with the coordinator stopped)",
                        e.getMessage());
                  } else {
                    log.error("retention failed", e);
                  }
                }
              });
      SnapshotListener afterCommit =
          new SnapshotListener() {
            @Override
            public void completed(CompletedSnapshot snapshot) {
              // Off cutpoint-store: the next snapshot's FindChunks and parts do not wait behind it
              // (the store's own locks order it with them, as they do an operator's delete). A
              // snapshot kept over the limit meanwhile is deleted by the next run, within the
              // spacing.
              retention.request();
              analysis.snapshotCommitted(snapshot.id());
            }

            @Override
            public void ended(
                SnapshotManifest m, FailureReason reason, Duration d, boolean exceeded) {
              storeIo.execute("measuring the store", s -> metrics.storeSize(safeSize(s)));
            }
          };
      SnapshotLifecycle lifecycle =
          new SnapshotLifecycle(
              new SnapshotLifecycle.Settings(
                  config.snapshotTimeout(),
                  config.minPauseBetweenSnapshots(),
                  config.maxConcurrentSnapshots(),
                  config.tolerableConsecutiveFailures()),
              clock,
              scheduler,
              storeIo,
              membership::view,
              sessions,
              new Listeners(List.of(metrics, new SnapshotEvents(events), afterCommit)));
      RollbackService rollback =
          rollbackFactory.create(
              new RollbackService.Parts(
                  config,
                  clock,
                  scheduler,
                  storeIo,
                  store,
                  membership,
                  sessions,
                  lifecycle,
                  events,
                  metrics));
      SnapshotSchedule schedule =
          new SnapshotSchedule(
              config.snapshotInterval(),
              scheduler,
              lifecycle,
              store::unavailable,
              events,
              metrics,
              newestWorkers(store));
      CoordinatorContext ctx =
          new CoordinatorContext(
              new CoordinatorContext.Parts(
                  config,
                  clock,
                  scheduler,
                  store,
                  storeIo,
                  membership,
                  sessions,
                  events,
                  metrics,
                  transfers,
                  lifecycle,
                  rollback,
                  schedule));

      cleanUpPending(store);
      store.latestComplete().ifPresent(m -> metrics.latestComplete(m.getFinishedAtUnixMs()));
      metrics.storeSize(safeSize(store));

      HealthStatusManager health = new HealthStatusManager();
      ServerServiceDefinition admin =
          adminService(config, new AdminService(ctx, analyzer::analyze, EventHub.DEFAULT_BUFFER));
      String localName =
          "cutpoint-admin-local-"
              + ProcessHandle.current().pid()
              + "-"
              + LOCAL_NAMES.incrementAndGet();
      local =
          InProcessServerBuilder.forName(localName)
              .addService(admin)
              .intercept(new BoundedStatusDescriptions())
              .build();
      if (serverBuilder instanceof NettyServerBuilder netty) {
        CallThreads.handOffFreeOnTransport(netty); // uploads, sessions, triggers: no hop
        KeepAlivePermit.apply(netty); // workers that follow a leader ping it
      }
      try {
        local.start();
        server =
            serverBuilder
                .addService(
                    ServerInterceptors.intercept(
                        new CoordinatorService(ctx).definition(),
                        new WorkerIdentity(
                            config.workerToken(), config.tls() != null && config.tls().mutual())))
                .addService(admin)
                .addService(health.getHealthService())
                .addService(ProtoReflectionServiceV1.newInstance())
                .addService(reflectionV1Alpha())
                .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
                .intercept(new BoundedStatusDescriptions())
                .build()
                .start();
      } catch (IOException e) {
        throw new UncheckedIOException("coordinator could not listen: " + e.getMessage(), e);
      }
      StoreWatch.setAll(health, ServingStatus.SERVING);
      cs =
          new CoordinatorServer(
              ctx, server, local, localName, health, scheduler, maintenance, transfers);
      scheduler.execute(rollback::start);
      cs.scheduleHeartbeatCheck();
      cs.maintenance.execute(cs.storeWatch::scrub);
      cs.scheduleStoreWatch();
      if (!config.snapshotInterval().isZero()) {
        cs.schedulePeriodic();
      }
      log.info(
          "coordinator listening on {} (epoch {}, data {}, snapshot interval {}, {}, {}, {})",
          describeBind(config.bindHost(), server.getPort()),
          store.epoch(),
          config.dataDir(),
          config.snapshotInterval(),
          config.tls() == null ? "plaintext" : config.tls().mutual() ? "mutual TLS" : "TLS",
          config.adminToken() == null ? "admin service open" : "admin token required",
          config.workerToken() != null
              ? "worker token required"
              : config.tls() != null && config.tls().mutual()
                  ? "worker certificates required"
                  : "workers not authenticated");
      return cs;
    } catch (RuntimeException | Error failure) {
      // A store that fails now (a lost ZooKeeper session, say) must not leave the port, its
      // services or the threads behind: a leader's port would keep serving a dead coordinator.
      if (cs != null) {
        cs.close();
      } else {
        if (server != null) {
          server.shutdownNow();
        }
        if (local != null) {
          local.shutdownNow();
        }
        scheduler.close();
        storeIo.close();
        maintenance.close();
        transfers.shutdownNow();
      }
      throw failure;
    }
  }

  /** Server reflection v1alpha, for clients (older grpcurl) that speak only that version. */
  @SuppressWarnings("deprecation") // v1alpha is deprecated in favour of v1, which is served too
  private static io.grpc.BindableService reflectionV1Alpha() {
    return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
  }

  /** Names the in-process Admin servers of the coordinators of this JVM apart. */
  private static final java.util.concurrent.atomic.AtomicLong LOCAL_NAMES =
      new java.util.concurrent.atomic.AtomicLong();

  /** The Admin service behind the admin-token check when a token is configured. */
  private static ServerServiceDefinition adminService(
      CoordinatorConfig config, AdminService admin) {
    if (config.adminToken() == null) {
      return admin.bindService();
    }
    return ServerInterceptors.intercept(admin, new AdminTokenInterceptor(config.adminToken()));
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static ContinuousAnalysis.Listener analysisEvents(EventHub events) {
    return new ContinuousAnalysis.Listener() {
      @Override
      public void deadlockDetected(long snapshotId, io.cutpoint.server.analysis.Deadlock deadlock) {
        events.publish(
            EventType.EVENT_TYPE_DEADLOCK_DETECTED,
            snapshotId,
            null,
            "deadlocked workers " + deadlock.workers() + ", cycle " + deadlock.cycle(),
            0);
      }

      @Override
      public void terminationDetected(
          long snapshotId, io.cutpoint.server.analysis.TerminationVerdict verdict) {
        events.publish(
            EventType.EVENT_TYPE_TERMINATION_DETECTED,
            snapshotId,
            null,
            "every worker passive and every channel empty",
            0);
      }
    };
  }

  /**
   * Ends what PENDING snapshots of an earlier run left behind (the store may have done it): the
   * first thing a coordinator does over its store (and the seeded simulator, at a restart).
   */
  public static void cleanUpPending(SnapshotStore store) {
    for (SnapshotManifest m : store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_PENDING))) {
      log.warn(
          "snapshot {} was pending when the coordinator stopped; aborting it", m.getSnapshotId());
      store.finish(
          m.toBuilder()
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
              .setReason("the coordinator restarted while it was pending")
              .build());
    }
  }

  /** Applies retention (on {@code cutpoint-maintenance}). */
  private static void retain(
      SnapshotStore store, int keep, EventHub events, CoordinatorMetrics metrics) {
    for (long id : store.applyRetention(keep)) {
      events.publish(EventType.EVENT_TYPE_SNAPSHOT_DELETED, id, null, "deleted by retention", 0);
    }
    metrics.storeSize(store.sizeBytes());
    metrics.contentChunks(store.contentChunks());
  }

  private static long safeEpoch(SnapshotStore store) {
    try {
      return store.epoch();
    } catch (StoreException e) {
      return 0;
    }
  }

  private static long safeSize(SnapshotStore store) {
    try {
      return store.sizeBytes();
    } catch (StoreException e) {
      return 0;
    }
  }

  private void scheduleHeartbeatCheck() {
    scheduler.schedule(
        () -> {
          if (!closed.get()) {
            try {
              ctx.checkHeartbeats();
            } finally {
              scheduleHeartbeatCheck(); // one failed check must not end loss detection
            }
          }
        },
        ctx.config().heartbeatInterval());
  }

  private void scheduleStoreWatch() {
    maintenance.schedule(
        () -> {
          if (!closed.get()) {
            try {
              storeWatch.check();
            } finally {
              scheduleStoreWatch();
            }
          }
        },
        ctx.config().heartbeatInterval());
  }

  /** The workers of the newest complete snapshot in {@code store}; none if it holds none. */
  private static java.util.Set<String> newestWorkers(SnapshotStore store) {
    java.util.Set<String> ids = new java.util.HashSet<>();
    store
        .latestComplete()
        .ifPresent(m -> m.getTopology().getWorkersList().forEach(w -> ids.add(w.getWorkerId())));
    return ids;
  }

  /** Why the store cannot write (health is NOT_SERVING meanwhile), or empty. */
  public java.util.Optional<String> storeUnavailable() {
    return storeWatch.unavailable();
  }

  private void schedulePeriodic() {
    scheduler.schedule(
        () -> {
          if (closed.get()) {
            return;
          }
          var unused = ctx.schedule().attempt(); // it reports its own outcome
          schedulePeriodic();
        },
        ctx.config().snapshotInterval());
  }

  /** The coordinator's parts (for tests and for the rollback). */
  public CoordinatorContext context() {
    return ctx;
  }

  /** The socket addresses it listens on (none for an in-process server). */
  public List<java.net.SocketAddress> listenAddresses() {
    return List.copyOf(server.getListenSockets());
  }

  /**
   * A channel to this coordinator's Admin service inside the process, behind the same token check
   * as the network port: callers attach {@code authorization: Bearer <token>} as over the network.
   * Closed by {@link #close()}.
   */
  public Channel adminChannel() {
    return localChannel;
  }

  /** The port it listens on (-1 for an in-process server). */
  public int port() {
    return server.getPort();
  }

  /**
   * Where a client on this machine reaches it: the bound host (localhost for every interface) and
   * port.
   */
  public String target() {
    String host = ctx.config().bindHost();
    if (host.equals(CoordinatorConfig.ANY) || host.equals("::") || host.equals("0:0:0:0:0:0:0:0")) {
      host = "localhost";
    }
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port();
  }

  /** What the gRPC port really binds, in words: {@code 127.0.0.1:7070 (loopback only)}. */
  public String bindDescription() {
    return describeBind(ctx.config().bindHost(), port());
  }

  private static String describeBind(String host, int port) {
    String where;
    try {
      java.net.InetAddress a = java.net.InetAddress.getByName(host);
      where =
          a.isAnyLocalAddress()
              ? "every interface"
              : a.isLoopbackAddress() ? "loopback only" : "one interface";
    } catch (java.net.UnknownHostException e) {
      where = "unresolved";
    }
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port + " (" + where + ")";
  }

  /** Blocks until the server has terminated. */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /**
   * Stops in stages: refuses new calls, aborts pending snapshots, ends the sessions (workers
   * reconnect to the next coordinator), waits for calls to finish, then forces; closes the store.
   * Safe to call twice.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    health.enterTerminalState();
    server.shutdown();
    local.shutdown();
    try {
      ctx.loop()
          .call(
              () -> {
                ctx.lifecycle()
                    .abortAll(FailureReason.COORDINATOR, "the coordinator is shutting down");
                return null;
              })
          .get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      log.warn("could not abort pending snapshots on shutdown", e);
    }
    ctx.sessions().closeAll(Status.UNAVAILABLE.withDescription("the coordinator is shutting down"));
    ctx.events().closeAll();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    localChannel.shutdownNow();
    local.shutdownNow();
    ctx.rollback().close();
    scheduler.close();
    ctx.storeIo().close(); // after the loop: nothing posts store writes any more
    maintenance.close();
    transfers.shutdownNow();
    ctx.store().close();
    ctx.metrics().close();
    log.info("coordinator stopped");
  }

  /** Calls several listeners in order. */
  private record Listeners(List<SnapshotListener> all) implements SnapshotListener {
    @Override
    public void started(SnapshotManifest pending) {
      all.forEach(l -> l.started(pending));
    }

    @Override
    public void completed(CompletedSnapshot snapshot) {
      all.forEach(l -> l.completed(snapshot));
    }

    @Override
    public void ended(SnapshotManifest m, FailureReason reason, Duration d, boolean exceeded) {
      all.forEach(l -> l.ended(m, reason, d, exceeded));
    }
  }
}
