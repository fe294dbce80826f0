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
}
