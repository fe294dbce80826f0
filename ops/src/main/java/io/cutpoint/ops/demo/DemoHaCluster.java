package io.cutpoint.ops.demo;

import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.ha.node.HaCoordinator;
import io.cutpoint.ops.local.LocalSharedStore;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.grpc.KeepAlivePermit;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ForwardingServerBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.KillSession;

/**
 * The highly available coordinator of {@code demo --ha N}, all in the demo's process: a ZooKeeper
 * server and an S3 server ({@link LocalSharedStore}) and N {@link HaCoordinator}s on loopback
 * ports, each with its own Curator and S3 clients. {@link #crashLeader()} kills the leader as
 * abruptly as one process allows and starts it again, on the same port, as a standby.
 *
 * <p>Thread-safe: the demo's main thread kills and restarts; any thread may read.
 */
final class DemoHaCluster implements AutoCloseable {
  /**
   * The coordinators' ZooKeeper session timeout: a crashed leader's latch node stays this long. The
   * demo's ZooKeeper ticks every 250 ms, so it grants 0.5 to 5 s.
   */
  static final Duration ZK_SESSION = Duration.ofSeconds(3);

  private static final Duration RESTART_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration LEADER_WAIT = Duration.ofSeconds(30);

  private final LocalSharedStore shared;
  private final CoordinatorConfig config;
  private final S3SnapshotStore.Location where =
      new S3SnapshotStore.Location(LocalSharedStore.BUCKET, "demo", "/cutpoint/demo");
  private final Node[] nodes;

  /** One coordinator and the clients and server it was given, so that they can be killed. */
  private static final class Node {
    final int port;
    final HaCoordinator coordinator;
    final CuratorFramework zk;
    final Server[] netty;

    Node(int port, HaCoordinator coordinator, CuratorFramework zk, Server[] netty) {
      this.port = port;
      this.coordinator = coordinator;
      this.zk = zk;
      this.netty = netty;
    }
  }

  private DemoHaCluster(int n, CoordinatorConfig config) throws Exception {
    this.config = config;
    this.nodes = new Node[n];
    shared = LocalSharedStore.start();
    try {
      for (int i = 0; i < n; i++) {
        nodes[i] = startNode(0);
      }
    } catch (Exception | Error e) {
      for (Node node : nodes) {
        if (node != null) {
          node.coordinator.close();
        }
      }
      shared.close();
      throw e;
    }
  }

  /** Starts ZooKeeper, S3 and {@code n} coordinators; one of them will lead. */
  static DemoHaCluster start(int n, CoordinatorConfig config) throws Exception {
    return new DemoHaCluster(n, config);
  }

  /** Starts a coordinator on {@code port} (0 = a free one), retrying while the port is busy. */
  private Node startNode(int port) throws IOException {
    long deadline = System.nanoTime() + RESTART_TIMEOUT.toNanos();
    while (true) {
      CuratorFramework client =
          CuratorFrameworkFactory.builder()
              .connectString(shared.zookeeperHosts())
              .sessionTimeoutMs((int) ZK_SESSION.toMillis())
              .connectionTimeoutMs((int) ZK_SESSION.toMillis())
              .retryPolicy(new ExponentialBackoffRetry(100, 10, 1_000))
              .build();
      client.start();
      Server[] netty = new Server[1];
      try {
        HaCoordinator c =
            HaCoordinator.start(
                new HaCoordinator.Parts(
                    config,
                    new SimpleMeterRegistry(),
                    capturing(
                        KeepAlivePermit.apply(
                            NettyServerBuilder.forAddress(
                                new InetSocketAddress("127.0.0.1", port))),
                        netty),
                    client,
                    shared.newS3Client(),
                    where,
                    null));
        return new Node(c.port(), c, client, netty);
      } catch (IOException e) {
        client.close();
        if (System.nanoTime() > deadline) {
          throw e;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // the old socket is closing
      }
    }
  }

  /** A builder that keeps the server it builds, so that the demo can shut it down at once. */
  private static ServerBuilder<?> capturing(NettyServerBuilder netty, Server[] built) {
    return new Capturing(netty, built);
  }

  private static final class Capturing extends ForwardingServerBuilder<Capturing> {
    private final NettyServerBuilder netty;
    private final Server[] built;

    Capturing(NettyServerBuilder netty, Server[] built) {
      this.netty = netty;
      this.built = built;
    }

    @Override
    protected ServerBuilder<?> delegate() {
      return netty;
    }

    @Override
    public Server build() {
      built[0] = netty.build();
      return built[0];
    }
  }

  /** The coordinators' addresses, as the workers are given them. */
  List<String> addresses() {
    List<String> a = new ArrayList<>();
    for (Node n : snapshot()) {
      a.add(n.coordinator.address());
    }
    return a;
  }

  private synchronized Node[] snapshot() {
    return nodes.clone();
  }

  /** The coordinator that leads and runs its coordinator now, if exactly one does. */
  Optional<HaCoordinator> leader() {
    HaCoordinator found = null;
    for (Node n : snapshot()) {
      if (n.coordinator.leader().isPresent()) {
        if (found != null) {
          return Optional.empty();
        }
        found = n.coordinator;
      }
    }
    return Optional.ofNullable(found);
  }

  /** The store of the leader's coordinator, while one leads. */
  Optional<SnapshotStore> leaderStore() {
    return leader()
        .flatMap(HaCoordinator::leader)
        .map(CoordinatorServer::context)
        .map(c -> c.store());
  }

  /** The leader's term number, 0 while none leads. */
  long leaderTerm() {
    return leader().flatMap(HaCoordinator::term).map(t -> t.number()).orElse(0L);
  }

  /**
   * A channel inside the process to whichever coordinator leads at each call; between two leaders a
   * call waits up to {@link #LEADER_WAIT} for the next one, then goes to a standby and ends
   * UNAVAILABLE.
   */
  Channel adminChannel() {
    return new Channel() {
      @Override
      public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
        return target().newCall(method, options);
      }

      @Override
      public String authority() {
        return target().authority();
      }

      private Channel target() {
        long deadline = System.nanoTime() + LEADER_WAIT.toNanos();
        Optional<HaCoordinator> l = leader();
        while (l.isEmpty() && System.nanoTime() < deadline) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
          l = leader();
        }
        return l.orElse(snapshot()[0].coordinator).localChannel();
      }
    };
  }

  /**
   * Kills the leader as close to a crash as one process gets, and starts it again on the same port
   * as a standby: its gRPC server is shut down now (every worker's and caller's stream breaks, no
   * goodbye); its ZooKeeper session is expired on the client side only ({@link KillSession}: no
   * close request reaches ZooKeeper, which keeps the session and the leader's latch node until
   * {@link #ZK_SESSION} passes) and its Curator client closed, so it can write nothing more to the
   * catalog; then what is left of it (threads, the S3 client) is closed. Returns the killed term,
   * or 0 when no coordinator led.
   */
  long crashLeader() throws Exception {
    int i = -1;
    Node[] all = snapshot();
    for (int k = 0; k < all.length; k++) {
      if (all[k].coordinator.leader().isPresent()) {
        i = k;
      }
    }
    if (i < 0) {
      return 0;
    }
    Node n = all[i];
    long term = n.coordinator.term().map(t -> t.number()).orElse(0L);
    n.netty[0].shutdownNow();
    KillSession.kill(n.zk.getZookeeperClient().getZooKeeper());
    n.zk.close();
    n.coordinator.close();
    Node again = startNode(n.port);
    synchronized (this) {
      nodes[i] = again;
    }
    return term;
  }

  @Override
  public void close() {
    for (Node n : snapshot()) {
      n.coordinator.close();
    }
    shared.close();
  }
}
