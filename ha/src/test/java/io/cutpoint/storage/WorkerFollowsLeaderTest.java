package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionState;
import io.cutpoint.ha.node.HaCoordinator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers built with {@link Worker.Builder#coordinators} against a real leader and standby: they
 * join the leader through the standby's pointer, commit with it, and after the leader stops the
 * same worker objects commit with the next leader, their sessions never closed.
 */
class WorkerFollowsLeaderTest {

  @TempDir Path dir;

  @Test
  void theWorkersOwnSessionsFollowTheLeaderAcrossAFailover() throws Exception {
    try (HaCluster cluster = new HaCluster(dir)) {
      cluster.startNode();
      cluster.startNode();
      HaCoordinator first =
          await().atMost(HaCluster.WAIT).until(cluster::leader, Optional::isPresent).get();
      List<String> addresses = new ArrayList<>(cluster.addresses());
      addresses.remove(first.address());
      addresses.add(first.address()); // the standby first: the workers follow its pointer
      List<Worker> workers = new ArrayList<>();
      try {
        workers.add(start("a", "b", String.join(",", addresses)));
        workers.add(start("b", "a", String.join(",", addresses)));
        SnapshotManifest committed =
            await()
                .atMost(HaCluster.WAIT)
                .until(() -> HaCluster.latestComplete(first), Optional::isPresent)
                .get();

        first.close();
        HaCoordinator next =
            await().atMost(HaCluster.WAIT).until(cluster::leader, Optional::isPresent).get();
        assertThat(next).isNotSameAs(first);
        await()
            .atMost(HaCluster.WAIT)
            .until(
                () -> HaCluster.latestComplete(next),
                m -> m.isPresent() && m.get().getSnapshotId() > committed.getSnapshotId());
        long nextTerm = next.term().orElseThrow().number();
        List<CoordinatorSession> sessions =
            workers.stream().map(w -> w.session().orElseThrow()).toList();
        // a session's term never goes back, but its state may (a heartbeat missed on a loaded
        // machine drops it, and it joins again): wait for both at once
        await()
            .atMost(HaCluster.WAIT)
            .until(
                () ->
                    sessions.stream()
                        .allMatch(
                            s -> s.leaderTerm() == nextTerm && s.state() == SessionState.JOINED));
      } finally {
        workers.forEach(Worker::close);
      }
      assertThat(workers)
          .allSatisfy(
              w -> assertThat(w.session().orElseThrow().state()).isEqualTo(SessionState.CLOSED));
    }
  }

  private static Worker start(String id, String peer, String coordinators) {
    return Worker.builder(id)
        .listenOn("127.0.0.1", 0)
        .outgoing(peer)
        .incoming(peer)
        .stateHandler(
            new StateHandler() {
              @Override
              public byte[] capture() {
                return new byte[] {1};
              }

              @Override
              public void restore(byte[] state) {}
            })
        .messageHandler((from, seq, payload) -> {})
        .coordinators(
            io.cutpoint.client.session.CoordinatorAddresses.parse(coordinators),
            io.grpc.InsecureChannelCredentials.create(),
            io.cutpoint.client.session.SessionOptions.defaults()
                .withReconnect(Duration.ofMillis(50), Duration.ofMillis(300)))
        .build()
        .start();
  }
}
