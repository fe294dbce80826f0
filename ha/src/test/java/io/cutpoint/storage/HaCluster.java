package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.LeaderChannel;
import io.cutpoint.client.session.SessionOptions;
import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.ha.node.HaCoordinator;
import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.grpc.InsecureChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingCluster;

/**
 * A highly available Cutpoint in the test JVM: a 3-server ZooKeeper ensemble ({@link
 * TestingCluster}), an S3 server ({@link S3Server}), coordinators ({@link HaCoordinator}, each with
 * its own Curator and S3 clients, on loopback ports) and real workers whose sessions follow the
 * leader over a {@link LeaderChannel}. {@link #close()} frees all of it, in reverse order.
 */
final class HaCluster implements AutoCloseable {
  static final String BUCKET = "cutpoint-ha";
  static final Duration WAIT = Duration.ofSeconds(120);

  final TestingCluster zk;
  final S3Server s3;
  final S3SnapshotStore.Location where =
      new S3SnapshotStore.Location(BUCKET, "cluster", "/cutpoint/cluster");
  final List<HaCoordinator> nodes = new ArrayList<>();
  final java.util.Map<HaCoordinator, SimpleMeterRegistry> registries =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.Map<HaCoordinator, org.apache.curator.framework.CuratorFramework>
      zkClients = new java.util.concurrent.ConcurrentHashMap<>();
  final List<Worker> workers = new ArrayList<>();
  final List<CoordinatorSession> sessions = new ArrayList<>();
  private final List<LeaderChannel> channels = new ArrayList<>();
  private final Path dataDir;

  HaCluster(Path dataDir) throws Exception {
    this.dataDir = dataDir;
    zk = ZooKeeperForTests.cluster(3, -1);
    zk.start();
    s3 = new S3Server();
    s3.createBucket(BUCKET);
  }

  /** Starts one more coordinator of the cluster. */
  HaCoordinator startNode() throws Exception {
    CoordinatorConfig config =
        CoordinatorConfig.builder()
            .port(0)
            .dataDir(dataDir)
            .snapshotInterval(Duration.ofMillis(200))
            .minPauseBetweenSnapshots(Duration.ZERO)
            .heartbeatInterval(Duration.ofMillis(200))
            .heartbeatTimeout(Duration.ofSeconds(2))
            // the tests read snapshots they saw commit earlier, while new ones commit every 200 ms
            .retainCompleteSnapshots(100_000)
            .build();
    org.apache.curator.framework.CuratorFramework client =
        HaCoordinator.zookeeper(zk.getConnectString());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    HaCoordinator node =
        HaCoordinator.start(
            new HaCoordinator.Parts(
                config,
                registry,
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)),
                client,
                s3.newClient(),
                where,
                null));
    nodes.add(node);
    zkClients.put(node, client);
    registries.put(node, registry);
    return node;
  }

  /** The Curator client of {@code node}. */
  org.apache.curator.framework.CuratorFramework zkOf(HaCoordinator node) {
    return zkClients.get(node);
  }

  /**
   * Starts idle workers {@code ids} (fully connected), each with a session over a leader channel
   * that tries {@code addresses} in turn.
   */
  void startWorkers(List<String> addresses, String... ids) {
    startWorkers(addresses, new byte[0], ids);
  }

  /** The state each worker was last restored to, by worker id. */
  final java.util.Map<String, byte[]> restored = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * As {@link #startWorkers(List, String...)}, with {@code ballast} after each worker's 8-byte
   * counter in its state: a large state that changes little.
   */
  void startWorkers(List<String> addresses, byte[] ballast, String... ids) {
    for (String id : ids) {
      List<String> others = new ArrayList<>();
      for (String o : ids) {
        if (!o.equals(id)) {
          others.add(o);
        }
      }
      AtomicLong counter = new AtomicLong();
      Worker w =
          Worker.builder(id)
              .listenOn("127.0.0.1", 0)
              .outgoing(others)
              .incoming(others)
              .stateHandler(
                  new io.cutpoint.client.StateHandler() {
                    @Override
                    public byte[] capture() {
                      return ByteBuffer.allocate(8 + ballast.length)
                          .putLong(counter.get())
                          .put(ballast)
                          .array();
                    }

                    @Override
                    public void restore(byte[] state) {
                      counter.set(ByteBuffer.wrap(state).getLong());
                      restored.put(id, state);
                    }
                  })
              .messageHandler((from, seq, payload) -> counter.incrementAndGet())
              .build()
              .start();
      workers.add(w);
      LeaderChannel channel =
          LeaderChannel.forAddresses(addresses, InsecureChannelCredentials.create());
      channels.add(channel);
      CoordinatorSession s =
          new CoordinatorSession(
                  channel,
                  w,
                  SessionOptions.defaults()
                      .withReconnect(Duration.ofMillis(50), Duration.ofMillis(300))
                      .withCloseTimeout(Duration.ofSeconds(2)))
              .start();
      sessions.add(s);
    }
  }

  List<String> addresses() {
    return nodes.stream().map(HaCoordinator::address).toList();
  }

  /** The node whose coordinator runs, if exactly one's does. */
  Optional<HaCoordinator> leader() {
    List<HaCoordinator> leading = nodes.stream().filter(n -> n.leader().isPresent()).toList();
    return leading.size() == 1 ? Optional.of(leading.get(0)) : Optional.empty();
  }

  /** The newest complete snapshot in {@code node}'s store while it leads. */
  static Optional<SnapshotManifest> latestComplete(HaCoordinator node) {
    return node.leader().map(CoordinatorServer::context).flatMap(c -> c.store().latestComplete());
  }

  @Override
  public void close() throws Exception {
    for (CoordinatorSession s : sessions) {
      s.close();
    }
    for (LeaderChannel c : channels) {
      c.shutdownNow();
      c.awaitTermination(5, TimeUnit.SECONDS);
    }
    for (Worker w : workers) {
      w.close();
    }
    for (HaCoordinator n : nodes) {
      n.close();
    }
    try {
      s3.close();
    } finally {
      zk.close();
    }
  }
}
