package io.cutpoint.ha.node;

import io.cutpoint.ha.FencedException;
import io.cutpoint.ha.LeaderElection;
import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.grpc.LeaderPort;
import io.grpc.ServerBuilder;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A coordinator of a highly available cluster. It opens its gRPC port at once, as a standby ({@link
 * LeaderPort}: joins and Admin calls get UNAVAILABLE with the leader's address, health
 * NOT_SERVING), and campaigns in the ZooKeeper election with its advertised address as its
 * participant id. On winning it opens the shared {@link S3SnapshotStore} under the new {@link
 * LeaderTerm} (so the previous leader's pending snapshots end ABORTED and its uncommitted objects
 * go) and starts an ordinary {@link CoordinatorServer} over it on the same port: a persisted
 * rollback resumes, the schedule resumes, health turns SERVING. On losing the lead, or at the first
 * {@link FencedException} of any store call, it closes that coordinator at once (pending snapshots
 * fail, worker sessions end) and is a standby again.
 *
 * <p>The coordinator does not know about terms or ZooKeeper: this class wires the {@code ha} module
 * into it from outside, through the store it is given and the port's server builder.
 *
 * <p>Threads: the election's thread ({@code cutpoint-election-ADDRESS}) starts and stops the
 * leader's coordinator; {@code cutpoint-ha} delays a new attempt after a failed start, and removes
 * what earlier leaders left in the bucket once a new term serves.
 */
public final class HaCoordinator implements AutoCloseable {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(HaCoordinator.class);

  /** After the leader's coordinator failed to start, the lead is given up after this pause. */
  static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

  /**
   * Default ZooKeeper session timeout: a leader that stops answering loses the lead after this
   * long.
   */
  public static final Duration ZK_SESSION_TIMEOUT = Duration.ofSeconds(10);

  /**
   * What a coordinator of the cluster is made of; the caller's clients are closed by {@link
   * #close()}.
   *
   * @param config the coordinator's settings (its port is the port builder's)
   * @param registry where each term's coordinator reports its metrics
   * @param port the builder of the gRPC port (Netty in production)
   * @param zk a started Curator client of the ensemble, without chroot
   * @param s3 a client of the object store
   * @param where bucket, prefix and catalog path
   * @param advertise the {@code HOST:PORT} standbys name while this one leads; null = the bound
   *     host and the port
   */
  public record Parts(
      CoordinatorConfig config,
      MeterRegistry registry,
      ServerBuilder<?> port,
      CuratorFramework zk,
      S3Client s3,
      S3SnapshotStore.Location where,
      String advertise) {}

  private final Parts parts;
  private final LeaderPort port;
  private final String address;
  private final ScheduledExecutorService background;
  private final List<String> history = new CopyOnWriteArrayList<>();
  private final LeaderElection election;
  private volatile CoordinatorServer leader;
  private volatile LeaderTerm term;
  private volatile ConnectionState zookeeper = ConnectionState.CONNECTED;
  private final java.util.concurrent.atomic.AtomicBoolean closing =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final java.util.concurrent.CountDownLatch closed =
      new java.util.concurrent.CountDownLatch(1);

  private HaCoordinator(Parts parts) throws IOException {
    this.parts = parts;
    this.background =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "cutpoint-ha");
              t.setDaemon(true);
              return t;
            });
    LeaderElection[] self = new LeaderElection[1];
    this.port =
        LeaderPort.start(
            parts.port().maxInboundMessageSize(CoordinatorServer.MAX_INBOUND_MESSAGE_BYTES),
            new LeaderPort.Election() {
              @Override
              public Optional<String> leader() {
                return self[0] == null ? Optional.empty() : self[0].leader();
              }

              @Override
              public boolean starting() {
                return self[0] != null && self[0].term().isPresent() && leader == null;
              }
            });
    this.address =
        parts.advertise() != null ? parts.advertise() : target(parts.config(), port.port());
    parts.zk().getConnectionStateListenable().addListener((client, state) -> connection(state));
    Gauge.builder("cutpoint.ha.leader", this, n -> n.leader == null ? 0 : 1)
        .description("1 while this server leads its cluster, else 0")
        .register(parts.registry());
    Gauge.builder(
            "cutpoint.ha.zookeeper.connected", this, n -> n.connectionState().isConnected() ? 1 : 0)
        .description(
            "1 while this server's ZooKeeper session is connected to a quorum, else 0: without it"
                + " no server can lead or commit")
        .register(parts.registry());
    try {
      this.election =
          LeaderElection.start(parts.zk(), parts.where().catalogPath(), address, new Listener());
    } catch (RuntimeException e) {
      port.close();
      background.shutdownNow();
      throw e;
    }
    self[0] = election;
    log.info("coordinator {} is a standby, campaigning for {}", address, parts.where());
  }

  /** Opens the port as a standby and joins the election. */
  public static HaCoordinator start(Parts parts) throws IOException {
    return new HaCoordinator(parts);
  }

  /**
   * Starts on Netty at {@code config.port()}, with Curator and AWS SDK clients built from {@code
   * ha}; the S3 credentials come from the SDK's default chain (AWS_ACCESS_KEY_ID and
   * AWS_SECRET_ACCESS_KEY, a profile, an instance role).
   */
  public static HaCoordinator start(CoordinatorConfig config, HaSettings ha, MeterRegistry registry)
      throws IOException {
    CuratorFramework zk = zookeeper(ha.zookeeper().hosts(), ha.sessionTimeout());
    S3Client s3 = null;
    try {
      s3 = s3(ha);
      return start(
          new Parts(
              config,
              registry,
              CoordinatorServer.netty(config),
              zk,
              s3,
              new S3SnapshotStore.Location(
                  ha.store().bucket(), ha.store().prefix(), ha.zookeeper().path()),
              ha.advertise()));
    } catch (IOException | RuntimeException e) {
      if (s3 != null) {
        s3.close();
      }
      zk.close();
      throw e;
    }
  }

  /** A started Curator client of {@code hosts}, with the default session timeout. */
  public static CuratorFramework zookeeper(String hosts) {
    return zookeeper(hosts, ZK_SESSION_TIMEOUT);
  }

  /**
   * A started Curator client of {@code hosts}. The server may narrow the session timeout to its own
   * bounds (2 to 20 ticks; ZooKeeper's default tick is 2 s).
   */
  public static CuratorFramework zookeeper(String hosts, Duration sessionTimeout) {
    CuratorFramework zk =
        CuratorFrameworkFactory.builder()
            .connectString(hosts)
            .sessionTimeoutMs((int) sessionTimeout.toMillis())
            .connectionTimeoutMs(5_000)
            .retryPolicy(new ExponentialBackoffRetry(100, 10, 5_000))
            .build();
    zk.start();
    return zk;
  }

  /** An S3 client for the store of {@code ha}. */
  public static S3Client s3(HaSettings ha) {
    var b =
        S3Client.builder()
            .region(Region.of(ha.s3Region()))
            .forcePathStyle(ha.s3PathStyle())
            .credentialsProvider(DefaultCredentialsProvider.builder().build());
    if (ha.s3Endpoint() != null) {
      b.endpointOverride(ha.s3Endpoint());
    }
    return b.build();
  }

  /** The running coordinator while this one leads. */
  public Optional<CoordinatorServer> leader() {
    return Optional.ofNullable(leader);
  }

  /** The term this one leads under, while its coordinator runs. */
  public Optional<LeaderTerm> term() {
    return Optional.ofNullable(leader == null ? null : term);
  }

  /**
   * This server's ZooKeeper connection as Curator last reported it (SUSPENDED when the client has
   * already lost it): CONNECTED or RECONNECTED while a quorum answers; SUSPENDED or LOST while none
   * does, and then no server leads or commits.
   */
  public ConnectionState zookeeperState() {
    return connectionState();
  }

  /** The address standbys name while this one leads. */
  public String address() {
    return address;
  }

  /** The leader's address as the election says, if any. */
  public Optional<String> leaderAddress() {
    return election.leader();
  }

  public int port() {
    return port.port();
  }

  /**
   * A channel to this coordinator's port inside the process (see {@link LeaderPort#localChannel}).
   */
  public io.grpc.Channel localChannel() {
    return port.localChannel();
  }

  /** Blocks until {@link #close()} has run. */
  public void awaitClosed() throws InterruptedException {
    closed.await();
  }

  /** What happened to the lead, oldest first: "led term N", "stopped leading term N: why". */
  public List<String> history() {
    return List.copyOf(history);
  }

  /** Leaves the election (a leader stops its coordinator), closes the port and the clients. */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    election.close();
    // The election revokes the term it closes; a start that outlasted its wait kept its
    // coordinator, which is closed here so that its threads and store go too.
    CoordinatorServer still = leader;
    leader = null;
    if (still != null) {
      still.close();
    }
    background.shutdownNow();
    port.close();
    parts.s3().close();
    parts.zk().close();
    closed.countDown();
  }

  private final class Listener implements LeaderElection.Listener {
    /** On the election's thread. */
    @Override
    public void elected(LeaderTerm t) {
      S3SnapshotStore store = null;
      try {
        store =
            S3SnapshotStore.openDeferringSweep(
                parts.s3(), parts.zk(), parts.where(), t, Options.STORE);
        if (!store.abortedOnOpen().isEmpty()) {
          log.warn("{} aborted {}, pending under the previous leader", t, store.abortedOnOpen());
        }
        FencedStore fenced = new FencedStore(store, HaCoordinator.this::fenced);
        term = t;
        leader =
            CoordinatorServer.start(
                parts.config(), parts.registry(), port.builder(t.number()), fenced);
        history.add("led term " + t.number());
        log.info("coordinator {} leads under {} on port {}", address, t, port.port());
        sweepLeftovers(store, t);
      } catch (RuntimeException e) {
        if (store != null) {
          store.close();
        }
        String why = "could not start leading under " + t + ": " + e.getMessage();
        log.error("{}; giving up the lead in {}", why, RETRY_PAUSE, e);
        history.add("failed term " + t.number() + ": " + e.getMessage());
        background.schedule(
            () -> election.stepDown(t, why), RETRY_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
      }
    }

    /** On the election's thread. */
    @Override
    public void revoked(LeaderTerm t, String why) {
      CoordinatorServer was = leader;
      leader = null;
      ConnectionState zk = connectionState();
      String reason = zk.isConnected() ? why : why + "; ZooKeeper connection " + zk;
      if (was != null) {
        log.warn("coordinator {} stops leading {}: {}", address, t, reason);
        history.add("stopped leading term " + t.number() + ": " + reason);
        was.close();
      }
    }
  }

  /**
   * Removes the objects that earlier leaders' uncommitted snapshots left in the bucket, on {@code
   * cutpoint-ha} once this term's coordinator serves: the first snapshot after a failover does not
   * wait for the bucket to be walked. A failure is logged; retention sweeps again after each
   * commit.
   */
  private void sweepLeftovers(S3SnapshotStore store, LeaderTerm t) {
    background.execute(
        () -> {
          try {
            List<Long> removed = store.sweepLeftovers();
            if (!removed.isEmpty()) {
              log.info("{} removed the objects of uncommitted snapshots {}", t, removed);
            }
          } catch (RuntimeException e) {
            log.warn(
                "{} could not remove the objects of uncommitted snapshots: {}", t, e.toString());
          }
        });
  }

  /**
   * The connection's state, checked against the client itself: the latch's revocation and the
   * connection listener hear of a lost connection on different threads, in no fixed order, so the
   * listener's last state may not have caught up yet; then it is SUSPENDED.
   */
  private ConnectionState connectionState() {
    ConnectionState s = zookeeper;
    return s.isConnected() && !parts.zk().getZookeeperClient().isConnected()
        ? ConnectionState.SUSPENDED
        : s;
  }

  /** On Curator's event thread. */
  private void connection(ConnectionState state) {
    zookeeper = state;
    if (state.isConnected()) {
      log.info("coordinator {}: ZooKeeper connection {}", address, state);
    } else {
      log.warn(
          "coordinator {}: ZooKeeper connection {}: this server reaches no ZooKeeper quorum with"
              + " its session, so it can neither lead nor commit a snapshot until it does{}",
          address,
          state,
          leader == null ? "" : "; this server stops leading");
    }
  }

  /** On the thread of the refused store call: the lead is given up at once. */
  private void fenced(FencedException e) {
    log.error("coordinator {}: the store refused a write: {}", address, e.getMessage());
    election.stepDown(e.term(), "fenced: " + e.getMessage());
  }

  private static String target(CoordinatorConfig config, int port) {
    String host = config.bindHost();
    if (host.equals(CoordinatorConfig.ANY) || host.equals("::") || host.equals("0:0:0:0:0:0:0:0")) {
      host = "localhost";
    }
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  /** The store's options. */
  private static final class Options {
    static final S3SnapshotStore.Options STORE = S3SnapshotStore.Options.DEFAULT;
  }
}
