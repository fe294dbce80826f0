package io.cutpoint.ops.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.ha.node.HaCoordinator;
import io.cutpoint.ops.demo.SnapshotChecker;
import io.cutpoint.storage.S3Server;
import io.cutpoint.storage.ZooKeeperForTests;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingCluster;

/**
 * What the failure tests of this package run on: a 3-server ZooKeeper ensemble and S3Proxy in the
 * test JVM, three coordinators as child JVMs ({@link CoordinatorProcesses}), the bank's workers in
 * the test JVM ({@link BankWorkers}), and a ZooKeeper client that reads the catalog ({@link
 * CatalogAudit}). {@link #close()} frees all of it, child processes first, also after a failure.
 */
final class HaProcessCluster implements AutoCloseable {
  /** Short, so that a killed leader is replaced quickly; ZooKeeper's default tick allows 4 s. */
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

  static final Duration INTERVAL = Duration.ofMillis(300);
  static final Duration WAIT = CoordinatorProcesses.WAIT;

  final TestingCluster zk;
  final S3Server s3;
  final CoordinatorProcesses nodes;
  final CuratorFramework client;
  final CatalogAudit audit;
  BankWorkers bank;

  /**
   * The ensemble's tickTime in ms, {@code -Dcutpoint.ha.zk.tick-ms} (curator-test's default, 1 s,
   * when unset). ZooKeeper expires a session only on a tick boundary, so a failover takes up to one
   * tick more than the session timeout; a smaller tick measures what an ensemble tuned for fast
   * failover gives.
   */
  static final int TICK_MS = Integer.getInteger("cutpoint.ha.zk.tick-ms", -1);

  HaProcessCluster(Path dir) throws Exception {
    zk = ZooKeeperForTests.cluster(3, TICK_MS);
    S3Server s3server = null;
    CoordinatorProcesses processes = null;
    CuratorFramework c = null;
    try {
      zk.start();
      s3server = new S3Server();
      s3server.createBucket(CoordinatorProcesses.BUCKET);
      processes =
          new CoordinatorProcesses(dir, zk.getConnectString(), s3server, SESSION_TIMEOUT, INTERVAL);
      c = HaCoordinator.zookeeper(zk.getConnectString());
    } catch (Exception | Error e) {
      if (c != null) {
        c.close();
      }
      if (s3server != null) {
        s3server.close();
      }
      zk.close();
      throw e;
    }
    s3 = s3server;
    nodes = processes;
    client = c;
    audit = new CatalogAudit(client, CoordinatorProcesses.CLUSTER);
  }

  /** Starts three coordinators and the bank, and waits for a first snapshot of every account. */
  CoordinatorProcesses.Node startAll(List<String> accounts, long seed) {
    nodes.start(3);
    CoordinatorProcesses.Node leader = nodes.awaitLeader(null);
    bank = new BankWorkers(nodes.addresses(), accounts, seed);
    awaitCommitAfter(0);
    return leader;
  }

  /**
   * Waits for a COMPLETE snapshot in the catalog created after ZooKeeper transaction {@code zxid}.
   */
  CatalogAudit.Entry awaitCommitAfter(long zxid) {
    return awaitCommitAfter(zxid, 0);
  }

  /** As above, looking only at ids above {@code afterId} (those a new leader hands out). */
  CatalogAudit.Entry awaitCommitAfter(long zxid, long afterId) {
    return await("a commit after zxid " + zxid)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .ignoreExceptions()
        .until(() -> firstCompleteAfter(zxid, afterId), Optional::isPresent)
        .get();
  }

  /**
   * Waits for a COMPLETE snapshot created after {@code zxid} that covers every account, and returns
   * how checking it ended (CONSERVED, or VIOLATED with why).
   */
  SnapshotChecker.Outcome awaitFullCommitAfter(long zxid) {
    return await("a commit of every account after zxid " + zxid)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(
            () -> {
              for (CatalogAudit.Entry e : audit.entries().values()) {
                if (e.complete() && e.createdZxid() > zxid) {
                  SnapshotChecker.Outcome o = bank.checker().check(e.id());
                  if (o.kind() != SnapshotChecker.Kind.PARTIAL) {
                    return o;
                  }
                }
              }
              return null;
            },
            o -> o != null);
  }

  Optional<CatalogAudit.Entry> firstCompleteAfter(long zxid, long afterId) throws Exception {
    return audit.entries(afterId).values().stream()
        .filter(e -> e.complete() && e.createdZxid() > zxid)
        .findFirst();
  }

  /** Checks through the leader that snapshot {@code id} is readable and conserves the money. */
  SnapshotChecker.Outcome check(long id) {
    return await("snapshot " + id + " read through the leader")
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> bank.checker().check(id), o -> o != null);
  }

  void assertConserved(long id) {
    SnapshotChecker.Outcome o = check(id);
    assertThat(o.kind())
        .as("snapshot %d: %s", id, o.detail())
        .isEqualTo(SnapshotChecker.Kind.CONSERVED);
  }

  /** The manifest of {@code id} through the leader. */
  SnapshotManifest manifest(long id) {
    return check(id).manifest();
  }

  /** Every id in {@code before} is still COMPLETE in the catalog. */
  void assertStillComplete(List<Long> before) throws Exception {
    Map<Long, CatalogAudit.Entry> now = audit.entries();
    assertThat(before)
        .as("committed snapshots still COMPLETE")
        .allSatisfy(
            id -> assertThat(now.get(id)).isNotNull().matches(CatalogAudit.Entry::complete));
  }

  @Override
  public void close() throws Exception {
    try {
      nodes.close();
      if (bank != null) {
        bank.close();
      }
      client.close();
      s3.close();
    } finally {
      zk.close();
    }
  }
}
