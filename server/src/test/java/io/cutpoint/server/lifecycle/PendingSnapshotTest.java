package io.cutpoint.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.SnapshotTrigger;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.server.membership.ClusterTopology;
import io.cutpoint.server.membership.Declaration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PendingSnapshotTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** A pending snapshot of {@code n} workers w00, w01, ... without channels. */
  private static PendingSnapshot of(int n) {
    List<Declaration> workers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      workers.add(Declaration.of(id(i), "localhost:1", List.of(), List.of()));
    }
    return new PendingSnapshot(
        7,
        3,
        SnapshotTrigger.SNAPSHOT_TRIGGER_ADMIN,
        T0,
        new TreeSet<>(List.of(id(0))),
        ClusterTopology.of(workers));
  }

  private static String id(int i) {
    return String.format("w%02d", i);
  }

  private static Piece piece(int i) {
    return LifecycleFixture.piece(7, id(i), Map.of(), Map.of(), Map.of(), null);
  }

  @Test
  void aPublishedViewKeepsThePiecesItHadWhileLaterOnesArrive() {
    PendingSnapshot p = of(10);
    List<PendingManifest> seen = new ArrayList<>();
    seen.add(p.published());
    for (int i = 9; i >= 0; i--) { // the last worker first: arrival order is not the listed order
      p.add(piece(i), T0.plusMillis(10 - i));
      seen.add(p.published());
    }

    // past the first array's room: the earlier views still read only what they had
    for (int k = 0; k < seen.size(); k++) {
      PendingManifest v = seen.get(k);
      List<String> in = IntStream.range(10 - k, 10).mapToObj(PendingSnapshotTest::id).toList();
      assertThat(v.pieceCount()).isEqualTo(k);
      assertThat(v.manifest().getPiecesList()).extracting(WorkerPiece::getWorkerId).isEqualTo(in);
      for (int i = 0; i < 10; i++) {
        assertThat(v.delivered(id(i))).as("view %d, worker %s", k, id(i)).isEqualTo(i >= 10 - k);
      }
      assertThat(v.covers(id(9))).isTrue();
      assertThat(v.covers("w10")).isFalse();
      assertThat(v.epoch()).isEqualTo(3);
      assertThat(v.manifest().getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
      assertThat(v.manifest().getTopology().getWorkersCount()).isEqualTo(10);
    }
    assertThat(p.manifest()).isEqualTo(seen.get(10).manifest());
  }

  @Test
  void aViewIsMadeOncePerPieceAndItsManifestOnce() {
    PendingSnapshot p = of(3);
    p.add(piece(1), T0);
    PendingManifest v = p.published();
    assertThat(p.published()).isSameAs(v);
    assertThat(v.manifest()).isSameAs(v.manifest());

    p.add(piece(0), T0);
    assertThat(p.published()).isNotSameAs(v);
  }

  @Test
  void aSecondPieceOfOneWorkerIsRefused() {
    PendingSnapshot p = of(3);
    p.add(piece(1), T0);

    assertThatThrownBy(() -> p.add(piece(1), T0)).isInstanceOf(IllegalStateException.class);
    assertThat(p.published().pieceCount()).isEqualTo(1);
  }
}
