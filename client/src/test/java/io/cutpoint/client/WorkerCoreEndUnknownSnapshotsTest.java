package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A coordinator's welcome names the snapshots it has pending and the lowest id it will start: the
 * worker ends its recordings of every other snapshot below that id (a coordinator that was killed
 * started them, and nothing else would ever end them), and keeps the others.
 */
class WorkerCoreEndUnknownSnapshotsTest {

  private final WorkerCore core = TwoWayCore.of((from, seq, payload) -> {}, 1);

  @Test
  void recordingsBelowTheNextIdThatAreNotPendingEndTheOthersGoOn() {
    for (long id : List.of(3L, 5L, 7L, 9L)) {
      core.startSnapshot(id); // recording: waiting for a's marker
    }

    core.endUnknownSnapshots(8, Set.of(5L));

    assertThat(core.engine().inFlight()).containsExactly(5L, 9L);
    core.startSnapshot(3);
    assertThat(core.engine().inFlight()).as("3 was ended, not forgotten").containsExactly(5L, 9L);
  }

  @Test
  void anUnknownNextIdEndsNothing() {
    core.startSnapshot(3);

    core.endUnknownSnapshots(0, Set.of());

    assertThat(core.engine().inFlight()).containsExactly(3L);
  }

  @Test
  void aMarkerOfAnEndedSnapshotThatArrivesAfterTheWelcomeStartsNothing() {
    // A marker of 3 still on its way while the coordinator aborted 3 (this worker's session was
    // down): it started a recording that waited forever for the markers of workers that had
    // ended 3, copying every message of their channels into it.
    InboundLink fromA = new InboundLink() {};
    core.attach("a", fromA);
    core.endUnknownSnapshots(8, Set.of(5L));

    assertThat(markersSent(core.onFrame("a", fromA, marker(1, 3))))
        .as("3 ended at the coordinator: no recording, no markers")
        .isEmpty();
    assertThat(markersSent(core.onFrame("a", fromA, marker(2, 5))))
        .as("5 is pending there")
        .containsExactly(5L);
    assertThat(markersSent(core.onFrame("a", fromA, marker(3, 9))))
        .as("9 is one it may start")
        .containsExactly(9L);
    assertThat(core.engine().ignoredMarkers()).isEqualTo(1);
  }

  private static List<Long> markersSent(List<WorkerEffect> effects) {
    return effects.stream()
        .filter(e -> e instanceof WorkerEffect.SendMarker)
        .map(e -> ((WorkerEffect.SendMarker) e).snapshotId())
        .toList();
  }

  private static InboundFrame marker(long seq, long snapshotId) {
    return new InboundFrame(1, List.of(new ChannelItem.Mark(seq, snapshotId, 0)), 16, true);
  }
}
