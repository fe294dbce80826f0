package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.AdminGrpc;
import io.cutpoint.api.v1.ContentChunk;
import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ha.node.HaCoordinator;
import io.cutpoint.server.CoordinatorServer;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Content-addressed states through a failover, with real coordinators, workers, ZooKeeper and S3:
 * the workers' large states go up as shared chunks, the next leader holds the chunks the first one
 * stored (its workers upload none of them again), and a rollback on the next leader to a snapshot
 * the first one committed restores every state from those chunks.
 */
class HaContentTest {
  private static final int BALLAST = 512 << 10;

  @TempDir Path dir;

  @Test
  void theNextLeaderSharesAndRestoresTheChunksTheFirstOneStored() throws Exception {
    byte[] ballast = new byte[BALLAST];
    new Random(7).nextBytes(ballast);
    try (HaCluster cluster = new HaCluster(dir)) {
      cluster.startNode();
      cluster.startNode();
      HaCoordinator first =
          await().atMost(HaCluster.WAIT).until(cluster::leader, Optional::isPresent).get();
      cluster.startWorkers(cluster.addresses(), ballast, "a", "b");
      SnapshotManifest old =
          await()
              .atMost(HaCluster.WAIT)
              .until(() -> HaCluster.latestComplete(first), Optional::isPresent)
              .get();
      first.close();
      HaCoordinator next =
          await()
              .atMost(HaCluster.WAIT)
              .until(cluster::leader, l -> l.isPresent() && l.get() != first)
              .get();
      SnapshotManifest later =
          await()
              .atMost(HaCluster.WAIT)
              .until(
                  () -> HaCluster.latestComplete(next),
                  m -> m.isPresent() && m.get().getSnapshotId() > old.getSnapshotId())
              .get();

      SnapshotStore store = next.leader().map(CoordinatorServer::context).orElseThrow().store();
      Set<ByteString> listed = new HashSet<>();
      int references = 0;
      for (SnapshotManifest m : List.of(old, later)) {
        for (String w : List.of("a", "b")) {
          List<ContentChunk> content =
              store.workerMeta(m.getSnapshotId(), w).orElseThrow().getContentList();
          assertThat(content)
              .as("a state of 512 KiB goes up in content chunks")
              .hasSizeGreaterThan(1);
          content.forEach(c -> listed.add(c.getSha256()));
          references += content.size();
        }
      }
      assertThat(listed.size())
          .as("idle workers' states are equal: one set of chunks for both workers and snapshots")
          .isEqualTo(references / 4);
      assertThat(chunkObjects(cluster)).isEqualTo(listed.size());
      assertThat(cluster.registries.get(next).find("cutpoint.state.deduplicated").counter().count())
          .as("the next leader's workers uploaded none of the chunks the first one stored")
          .isGreaterThanOrEqualTo(2.0 * BALLAST);
      assertThat(cluster.registries.get(next).find("cutpoint.state.uploaded").counter().count())
          .isZero();

      ManagedChannel c =
          Grpc.newChannelBuilder(next.address(), InsecureChannelCredentials.create()).build();
      try {
        RollbackResponse r =
            AdminGrpc.newBlockingStub(c)
                .rollback(
                    RollbackRequest.newBuilder()
                        .setSnapshotId(old.getSnapshotId())
                        .setWait(true)
                        .build());
        assertThat(r.getSnapshotId()).isEqualTo(old.getSnapshotId());
      } finally {
        c.shutdownNow();
        c.awaitTermination(5, TimeUnit.SECONDS);
      }
      byte[] expected = ByteBuffer.allocate(8 + BALLAST).putLong(0).put(ballast).array();
      assertThat(cluster.restored).containsOnlyKeys("a", "b");
      cluster.restored.values().forEach(state -> assertThat(state).isEqualTo(expected));
      assertThat(store.manifest(old.getSnapshotId()).orElseThrow().getStatus())
          .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    }
  }

  private static long chunkObjects(HaCluster cluster) {
    return cluster
        .s3
        .client()
        .listObjectsV2(b -> b.bucket(HaCluster.BUCKET).prefix(cluster.where.prefix() + "/chunks/"))
        .keyCount();
  }
}
