package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cutpoint.ha.FencedException;
import io.cutpoint.ha.LeaderElection;
import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.ha.Terms;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaderElection} on real ZooKeeper servers: one leader among three participants, each
 * leader with a newer term than the one before, a lost session or a suspended connection revoked at
 * once, and the store of a revoked leader fenced as soon as the next one takes its term.
 */
class LeaderElectionTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String BASE = "/cutpoint/election";

  /** What one participant's listener heard, in order. */
  static final class Heard implements LeaderElection.Listener {
    final List<String> events = new CopyOnWriteArrayList<>();
    final java.util.Map<Long, String> revokedWhy = new java.util.concurrent.ConcurrentHashMap<>();
    volatile LeaderTerm leading;

    @Override
    public void elected(LeaderTerm term) {
      events.add("elected " + term.number());
      leading = term;
    }

    @Override
    public void revoked(LeaderTerm term, String why) {
      revokedWhy.put(term.number(), why);
      events.add("revoked " + term.number());
      leading = null;
    }
  }

  private static CuratorFramework client(String connect) throws InterruptedException {
    CuratorFramework zk =
        CuratorFrameworkFactory.builder()
            .connectString(connect)
            .sessionTimeoutMs(10_000)
            .connectionTimeoutMs(5_000)
            .retryPolicy(new ExponentialBackoffRetry(100, 5))
            .build();
    zk.start();
    if (!zk.blockUntilConnected(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no ZooKeeper at " + connect);
    }
    return zk;
  }

  private static int leaderOf(List<Heard> heard) {
    int leader = -1;
    for (int i = 0; i < heard.size(); i++) {
      if (heard.get(i).leading != null) {
        assertThat(leader).as("two participants lead at once").isEqualTo(-1);
        leader = i;
      }
    }
    return leader;
  }

  @Test
  void aKilledSessionRevokesTheLeaderAndTheNextOneLeadsUnderANewerTermThatFencesTheOldStore()
      throws Exception {
    List<CuratorFramework> clients = new ArrayList<>();
    List<LeaderElection> elections = new ArrayList<>();
    List<Heard> heard = List.of(new Heard(), new Heard(), new Heard());
    TestingCluster cluster = ZooKeeperForTests.cluster(3, -1);
    S3Server s3 = null;
    try {
      cluster.start(); // before any other socket: one could take a port picked for the ensemble
      s3 = new S3Server();
      s3.createBucket(HaTestbed.BUCKET);
      S3SnapshotStore.Location where =
          new S3SnapshotStore.Location(HaTestbed.BUCKET, "elected", BASE);
      for (int i = 0; i < 3; i++) {
        clients.add(client(cluster.getConnectString()));
        elections.add(LeaderElection.start(clients.get(i), BASE, "coordinator-" + i, heard.get(i)));
      }
      await().atMost(WAIT).until(() -> leaderOf(heard) >= 0);
      int first = leaderOf(heard);
      LeaderTerm firstTerm = heard.get(first).leading;
      assertThat(elections.get(first).term()).contains(firstTerm);
      S3SnapshotStore firstStore =
          S3SnapshotStore.open(
              s3.client(), clients.get(first), where, firstTerm, HaTestbed.OPTIONS);
      SnapshotFixture snap = new SnapshotFixture(firstStore.allocateSnapshotId(), 300, 128);
      snap.store(firstStore);
      SnapshotFixture unfinished = new SnapshotFixture(firstStore.allocateSnapshotId(), 300, 128);
      firstStore.createPending(unfinished.pending());
      unfinished.writePieces(firstStore);

      KillSession.kill(clients.get(first).getZookeeperClient().getZooKeeper());

      await()
          .atMost(WAIT)
          .until(() -> heard.get(first).events.contains("revoked " + firstTerm.number()));
      await()
          .atMost(WAIT)
          .until(
              () -> {
                int l = leaderOf(heard); // read once: the leader may change between two reads
                LeaderTerm t = l < 0 ? null : heard.get(l).leading;
                return t != null && t.number() > firstTerm.number();
              });
      int second = leaderOf(heard);
      LeaderTerm secondTerm = heard.get(second).leading;
      assertThat(secondTerm.number()).isEqualTo(firstTerm.number() + 1);
      assertThat(Terms.current(clients.get(second), BASE)).isEqualTo(secondTerm);

      // The old leader's store, even with its client connected again, cannot commit any more.
      await().atMost(WAIT).until(() -> clients.get(first).getZookeeperClient().isConnected());
      assertThatThrownBy(() -> firstStore.commit(unfinished.complete()))
          .isInstanceOf(FencedException.class);
      S3SnapshotStore secondStore =
          S3SnapshotStore.open(
              s3.client(), clients.get(second), where, secondTerm, HaTestbed.OPTIONS);
      assertThat(secondStore.abortedOnOpen()).containsExactly(unfinished.id);
      SnapshotStoreContract.assertReadsBack(secondStore, snap);
      firstStore.close();
      secondStore.close();

      // Every term was handed to one participant only.
      List<String> elected = new ArrayList<>();
      heard.forEach(
          h -> h.events.stream().filter(e -> e.startsWith("elected")).forEach(elected::add));
      assertThat(elected).doesNotHaveDuplicates();
    } finally {
      elections.forEach(LeaderElection::close);
      clients.forEach(CuratorFramework::close);
      if (s3 != null) {
        s3.close();
      }
      cluster.close();
    }
  }

  @Test
  void aSuspendedConnectionRevokesAtOnceAndReconnectingLeadsUnderANewerTerm() throws Exception {
    Heard heard = new Heard();
    try (TestingServer server = ZooKeeperForTests.server()) {
      CuratorFramework zk = client(server.getConnectString());
      LeaderElection election = LeaderElection.start(zk, BASE, "only", heard);
      try {
        await().atMost(WAIT).until(() -> heard.leading != null);
        LeaderTerm first = heard.leading;
        server.stop();
        await().atMost(WAIT).until(() -> heard.events.contains("revoked " + first.number()));
        assertThat(election.term()).isEmpty();
        server.restart();
        await()
            .atMost(WAIT)
            .until(() -> heard.leading != null && heard.leading.number() > first.number());
        assertThat(heard.events)
            .containsSubsequence(
                "elected " + first.number(),
                "revoked " + first.number(),
                "elected " + (first.number() + 1));
      } finally {
        election.close();
        zk.close();
      }
      assertThat(heard.events.get(heard.events.size() - 1)).startsWith("revoked");
    }
  }

  @Test
  void aLateStepDownForAnEarlierTermDoesNotEndTheTermThatFollowedIt() throws Exception {
    Heard heard = new Heard();
    try (TestingServer server = ZooKeeperForTests.server()) {
      CuratorFramework zk = client(server.getConnectString());
      LeaderElection election = LeaderElection.start(zk, BASE, "only", heard);
      try {
        await().atMost(WAIT).until(() -> heard.leading != null);
        LeaderTerm first = heard.leading;
        election.stepDown(first, "could not start");
        await()
            .atMost(WAIT)
            .until(() -> heard.leading != null && heard.leading.number() > first.number());
        LeaderTerm second = heard.leading;

        // a retry timer of the first term's failed start fires now; then the second steps down
        election.stepDown(first, "late, for the first term");
        election.stepDown(second, "the second term's own");
        await().atMost(WAIT).until(() -> heard.revokedWhy.containsKey(second.number()));
        assertThat(heard.revokedWhy.get(second.number())).isEqualTo("the second term's own");
      } finally {
        election.close();
        zk.close();
      }
    }
  }
}
