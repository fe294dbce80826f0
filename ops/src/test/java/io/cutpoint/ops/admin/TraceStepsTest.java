package io.cutpoint.ops.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.PhaseTimings;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.api.v1.WorkerTimeline;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The critical path of a trace: through the last piece delivered, its steps adding up to the end.
 */
class TraceStepsTest {

  private static WorkerPiece piece(String id, long header, long delivered, WorkerTimeline t) {
    LocalSnapshotMeta.Builder meta = LocalSnapshotMeta.newBuilder();
    if (t != null) {
      meta.setTimeline(t);
    }
    return WorkerPiece.newBuilder()
        .setWorkerId(id)
        .setHeaderReceivedMicros(header)
        .setDeliveredMicros(delivered)
        .setMeta(meta)
        .build();
  }

  /** The "to upload" steps of one worker {@code w} whose header arrived at 7 ms. */
  private static Map<String, Double> toUpload(WorkerTimeline t) {
    return SnapshotTrace.of(manifest(piece("w", 7_000, 8_000, t))).orElseThrow().toUpload();
  }

  /** The "to upload" steps, in their order, in ms. */
  private static Map<String, Double> toUpload(double wait, double cut, double find, double header) {
    Map<String, Double> steps = new LinkedHashMap<>();
    steps.put("wait for chunking", wait);
    steps.put("cut and hash", cut);
    steps.put("find chunks", find);
    steps.put("to the header", header);
    return steps;
  }

  private static SnapshotManifest manifest(WorkerPiece... pieces) {
    return SnapshotManifest.newBuilder()
        .addAllPieces(List.of(pieces))
        .setTimings(PhaseTimings.newBuilder().setTotalMicros(10_000).setCommitMicros(2_000))
        .build();
  }

  @Test
  void theCriticalPathGoesThroughTheLastPieceDeliveredAndAddsUpToTheEnd() {
    WorkerTimeline slow =
        WorkerTimeline.newBuilder()
            .setBeganMicros(6_000)
            .setCapturedMicros(5_000)
            .setCompletedMicros(1_000)
            .build();
    SnapshotTrace t =
        SnapshotTrace.of(
                manifest(
                    piece("fast", 2_000, 2_500, WorkerTimeline.getDefaultInstance()),
                    piece("slow", 7_000, 8_000, slow)))
            .orElseThrow();
    assertThat(t.last().id()).isEqualTo("slow");
    assertThat(t.criticalPath())
        .containsExactly(
            org.assertj.core.api.Assertions.entry("start to capture", 1.0),
            org.assertj.core.api.Assertions.entry("state capture", 1.0),
            org.assertj.core.api.Assertions.entry("markers", 4.0),
            org.assertj.core.api.Assertions.entry("to upload", 1.0),
            org.assertj.core.api.Assertions.entry("upload", 1.0),
            org.assertj.core.api.Assertions.entry("verify and commit", 2.0));
    assertThat(t.criticalPath().values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(t.endMillis(), within(1e-9));
  }

  @Test
  void toUploadIsCutWhereTheWorkerReportsItsChunkingAndAddsUpToThatStep() {
    WorkerTimeline chunked =
        WorkerTimeline.newBuilder()
            .setBeganMicros(6_000)
            .setCapturedMicros(5_000)
            .setCompletedMicros(4_000)
            .setChunkingBeganMicros(3_500)
            .setChunkedMicros(2_000)
            .setChunksFoundMicros(500)
            .build();
    SnapshotTrace t = SnapshotTrace.of(manifest(piece("w", 7_000, 8_000, chunked))).orElseThrow();
    assertThat(t.criticalPath().get("to upload")).isEqualTo(4.0);
    assertThat(t.toUpload()).containsExactlyEntriesOf(toUpload(0.5, 1.5, 1.5, 0.5));
    // cut from the capture on: begun before the local snapshot completed, the wait counts 0 and
    // the cut only what was left of it; a cut done by then counts 0 too
    WorkerTimeline early = chunked.toBuilder().setChunkingBeganMicros(4_800).build();
    assertThat(toUpload(early)).containsExactlyEntriesOf(toUpload(0.0, 2.0, 1.5, 0.5));
    WorkerTimeline done = early.toBuilder().setChunkedMicros(4_500).build();
    assertThat(toUpload(done)).containsExactlyEntriesOf(toUpload(0.0, 0.0, 3.5, 0.5));
    // a worker that cut nothing off its loop reports none
    assertThat(
            SnapshotTrace.of(
                    manifest(
                        piece(
                            "w",
                            7_000,
                            8_000,
                            chunked.toBuilder()
                                .clearChunkingBeganMicros()
                                .clearChunkedMicros()
                                .clearChunksFoundMicros()
                                .build())))
                .orElseThrow()
                .toUpload())
        .isEmpty();
  }

  @Test
  void aWorkerWithoutATimelineFoldsItsStepsIntoItsUpload() {
    SnapshotTrace t = SnapshotTrace.of(manifest(piece("old", 0, 8_000, null))).orElseThrow();
    assertThat(t.workers().get(0).began()).isNaN();
    assertThat(t.criticalPath().get("upload")).isEqualTo(8.0);
    assertThat(t.criticalPath().get("verify and commit")).isEqualTo(2.0);
    assertThat(t.criticalPath().get("markers")).isZero();
  }

  @Test
  void piecesStoredBeforeTheTraceHaveNone() {
    assertThat(SnapshotTrace.of(manifest(piece("a", 0, 0, null)))).isEmpty();
    assertThat(SnapshotTrace.of(manifest())).isEmpty();
  }
}
