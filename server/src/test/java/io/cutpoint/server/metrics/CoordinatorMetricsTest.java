package io.cutpoint.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.PhaseTimings;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.server.lifecycle.CompletedSnapshot;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.testing.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CoordinatorMetricsTest {

  @Test
  void outcomesPhasesSizesAndAgesAreRecordedUnderTheirFixedNames() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ManualClock clock = new ManualClock();
    CoordinatorMetrics metrics =
        new CoordinatorMetrics(registry, clock, s -> s == WorkerState.WORKER_STATE_RUNNING ? 3 : 0);
    assertThat(registry.get("cutpoint.snapshot.latest.age").gauge().value()).isNaN();
    assertThat(registry.get("cutpoint.workers").tag("state", "running").gauge().value())
        .isEqualTo(3);
    assertThat(registry.get("cutpoint.workers").tag("state", "halted").gauge().value()).isZero();

    SnapshotManifest done =
        SnapshotManifest.newBuilder()
            .setSnapshotId(1)
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
            .setFinishedAtUnixMs(clock.millis())
            .setTotalChannelBytes(100)
            .setInFlightMessages(7)
            .setTimings(
                PhaseTimings.newBuilder()
                    .setMarkerPropagationMicros(1000)
                    .setUploadMicros(2000)
                    .setCommitMicros(3000)
                    .setTotalMicros(6000))
            .build();
    metrics.started(done);
    assertThat(registry.get("cutpoint.snapshots.pending").gauge().value()).isEqualTo(1);
    metrics.completed(new CompletedSnapshot(done, 6));
    metrics.started(done);
    metrics.ended(
        done.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_FAILED).build(),
        FailureReason.CUT_INVALID,
        Duration.ofMillis(5),
        false);
    clock.advance(Duration.ofSeconds(4));

    assertThat(registry.get("cutpoint.snapshots.pending").gauge().value()).isZero();
    assertThat(registry.get("cutpoint.snapshots").tag("outcome", "complete").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("cutpoint.snapshots").tag("outcome", "failed").counter().count())
        .isEqualTo(1);
    assertThat(
            registry
                .get("cutpoint.snapshot.duration")
                .tag("outcome", "complete")
                .timer()
                .totalTime(java.util.concurrent.TimeUnit.MICROSECONDS))
        .isEqualTo(6000);
    assertThat(
            registry.get("cutpoint.snapshot.phase.duration").tag("phase", "commit").timer().count())
        .isEqualTo(1);
    assertThat(registry.get("cutpoint.snapshot.markers").counter().count()).isEqualTo(6);
    assertThat(registry.get("cutpoint.snapshot.inflight.messages").summary().totalAmount())
        .isEqualTo(7);
    assertThat(registry.get("cutpoint.snapshot.channel.state.size").summary().getId().getBaseUnit())
        .isEqualTo("bytes");
    assertThat(registry.get("cutpoint.snapshot.latest.age").gauge().value()).isEqualTo(4.0);
    assertThat(registry.get("cutpoint.snapshot.latest.age").gauge().getId().getBaseUnit())
        .isEqualTo("seconds");
    assertThat(registry.find("cutpoint.rollbacks").counters()).hasSize(2);
  }

  /** An HA node's registry outlives each leader term's coordinator: the gauges follow the term. */
  @Test
  void aLaterCoordinatorOnTheSameRegistryIsWhatItsGaugesRead() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CoordinatorMetrics first = new CoordinatorMetrics(registry, new ManualClock(), s -> 1);
    first.storeSize(100);
    first.close();
    CoordinatorMetrics second = new CoordinatorMetrics(registry, new ManualClock(), s -> 2);
    second.storeSize(200);

    assertThat(registry.get("cutpoint.store.size").gauge().value()).isEqualTo(200);
    assertThat(registry.get("cutpoint.workers").tag("state", "running").gauge().value())
        .isEqualTo(2);
  }
}
