package io.cutpoint.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.server.CoordinatorConfig;
import io.cutpoint.server.CoordinatorServer;
import io.cutpoint.server.analysis.InMemorySnapshotStore;
import io.cutpoint.server.testing.InterceptedStore;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator whose store fails after it took the leader's port (a ZooKeeper session lost in the
 * middle of a term's start): the start fails, and the port goes back to the standby, so that the
 * next term this node wins can serve on it.
 */
class FailedTermStartTest {

  @TempDir Path dir;

  @Test
  void aStartThatFailsAfterTakingThePortGivesThePortBack() throws Exception {
    try (LeaderPort port =
        LeaderPort.start(
            InProcessServerBuilder.forName(InProcessServerBuilder.generateName()),
            new LeaderPort.Election() {
              @Override
              public Optional<String> leader() {
                return Optional.empty();
              }

              @Override
              public boolean starting() {
                return false;
              }
            },
            Duration.ZERO)) {
      CoordinatorConfig config =
          CoordinatorConfig.builder().dataDir(dir).snapshotInterval(Duration.ZERO).build();
      SnapshotStore lost =
          InterceptedStore.around(
              new InMemorySnapshotStore(),
              (method, args) -> {
                if (port.leading()) {
                  throw new StoreException("the ZooKeeper session expired");
                }
              });

      assertThatThrownBy(
              () ->
                  CoordinatorServer.start(config, new SimpleMeterRegistry(), port.builder(1), lost))
          .hasMessageContaining("session expired");

      assertThat(port.leading()).isFalse();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (CoordinatorServer next =
          CoordinatorServer.start(config, registry, port.builder(2), new InMemorySnapshotStore())) {
        assertThat(port.leading()).isTrue();
        assertThat(registry.find("cutpoint.store.size").gauge()).isNotNull();
      }
      // the node's registry outlives the term: the next term's coordinator registers its own
      assertThat(registry.find("cutpoint.store.size").gauge()).isNull();
    }
  }
}
