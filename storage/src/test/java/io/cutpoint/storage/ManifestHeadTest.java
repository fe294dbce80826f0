package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.PhaseTimings;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.Violation;
import io.cutpoint.api.v1.WorkerPiece;
import org.junit.jupiter.api.Test;

/**
 * Retention reads only a stored manifest's head: the same id, status, pin and totals as the whole
 * manifest gives, with the same checksum check.
 */
class ManifestHeadTest {

  private static final SnapshotManifest FULL =
      SnapshotManifest.newBuilder()
          .setSnapshotId(42)
          .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
          .setEpoch(3)
          .setStartedAtUnixMs(1_700_000_000_000L)
          .setReason("every field around the head's")
          .addInitiators("a")
          .setTopology(Topology.newBuilder().build())
          .addPieces(
              WorkerPiece.newBuilder()
                  .setWorkerId("a")
                  .setMeta(LocalSnapshotMeta.newBuilder().setWorkerId("a").setSnapshotId(42))
                  .setStateChunks(3)
                  .setChannelBytes(1 << 20))
          .addPieces(WorkerPiece.newBuilder().setWorkerId("b").setStateChunks(1))
          .setPinned(true)
          .setTotalStateBytes(123_456_789_012L)
          .setTotalChannelBytes(1 << 20)
          .setInFlightMessages(7)
          .addViolations(Violation.newBuilder().build())
          .setTimings(PhaseTimings.newBuilder().setTotalMicros(5_000))
          .build();

  @Test
  void theHeadHasTheWholeManifestsIdStatusPinAndTotals() {
    byte[] key = Keys.snapshot(42);
    byte[] value = ValueFrames.wrap(key, FULL.toByteArray());

    SnapshotManifest head = StoreReader.parseManifestHead(key, value);

    assertThat(head)
        .isEqualTo(
            SnapshotManifest.newBuilder()
                .setSnapshotId(42)
                .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
                .setPinned(true)
                .setTotalStateBytes(123_456_789_012L)
                .setTotalChannelBytes(1 << 20)
                .build());
    assertThat(StoreReader.parseManifest(key, value)).isEqualTo(FULL);
  }

  @Test
  void aHeadOfDefaultsIsReadAsDefaults() {
    SnapshotManifest pending =
        SnapshotManifest.newBuilder()
            .setSnapshotId(7)
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
            .addPieces(WorkerPiece.newBuilder().setWorkerId("a"))
            .build();
    byte[] key = Keys.snapshot(7);

    SnapshotManifest head =
        StoreReader.parseManifestHead(key, ValueFrames.wrap(key, pending.toByteArray()));

    assertThat(head.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    assertThat(head.getPinned()).isFalse();
    assertThat(head.getPiecesCount()).isZero();
  }

  @Test
  void aCorruptedManifestIsCaughtWhenOnlyItsHeadIsRead() {
    byte[] key = Keys.snapshot(42);
    byte[] value = ValueFrames.wrap(key, FULL.toByteArray());
    value[value.length - 3] ^= 0x10; // a bit of the timings, far from the head's fields

    assertThatThrownBy(() -> StoreReader.parseManifestHead(key, value))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("snapshot 42, manifest");
  }
}
