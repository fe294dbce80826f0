package io.cutpoint.server.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import java.util.SortedMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ScaleCurve}'s cluster at a small size: each idle snapshot commits with a piece of every
 * worker, its cut read back from the store verifies, and the coordinator's work was counted. No
 * timing is asserted.
 */
class ScaleCurveTest {

  @ParameterizedTest
  @ValueSource(strings = {"ring:10", "mesh:5"})
  void anIdleSnapshotCommitsAndItsCutVerifies(String spec) {
    try (QuietLogs quiet = new QuietLogs()) {
      int workers = ScaleCurve.topology(spec).workers().size();
      IdleCluster cluster = new IdleCluster(ScaleCurve.topology(spec), 7);
      assertThat(cluster.problems()).as("problems while the workers joined").isEmpty();

      IdleCluster.Taken first = cluster.snapshot();
      IdleCluster.Taken second = cluster.snapshot();

      for (IdleCluster.Taken taken : new IdleCluster.Taken[] {first, second}) {
        SnapshotManifest m = taken.manifest();
        assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
        assertThat(m.getPiecesCount()).isEqualTo(workers);
        assertThat(cluster.stored(m.getSnapshotId()).map(SnapshotManifest::getStatus))
            .contains(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
        // the trigger, an upload and an acknowledgement per worker, the store's writes
        assertThat(taken.coordinatorTasks()).isGreaterThan(2L * workers);
        assertThat(taken.coordinatorNanos()).isPositive();
      }
      SortedMap<Long, String> cuts = cluster.checkCommitted();
      assertThat(cluster.problems()).as("problems, the committed cuts' checks included").isEmpty();
      assertThat(cuts)
          .containsOnlyKeys(first.manifest().getSnapshotId(), second.manifest().getSnapshotId());
      cuts.values().forEach(c -> assertThat(c.lines()).as("a piece per worker").hasSize(workers));
    }
  }
}
