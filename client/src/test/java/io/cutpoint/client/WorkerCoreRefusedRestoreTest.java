package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * An application that refuses the restored state (its restore throws) leaves the worker as it was:
 * its channel counters, its senders' numbering and its replay are not the snapshot's. They were,
 * and a worker resumed after the failed restore (an operator cancelled the rollback) ran on its old
 * state with the snapshot's counters and without the messages recorded in flight: a mix of two
 * states.
 */
class WorkerCoreRefusedRestoreTest {

  private static final long EPOCH = 3;

  @Test
  void aRestoreTheApplicationRefusesChangesNothingOfTheWorker() {
    List<Long> delivered = new ArrayList<>();
    StateHandler refusing =
        new StateHandler() {
          @Override
          public byte[] capture() {
            return new byte[0];
          }

          @Override
          public void restore(byte[] state) {
            throw new IllegalStateException("the application cannot read this state");
          }
        };
    WorkerCore core = TwoWayCore.of(refusing, (from, seq, payload) -> delivered.add(seq), EPOCH);
    core.send("a", new byte[1]);
    core.send("a", new byte[1]);
    core.markHalted(EPOCH + 1);
    core.halt(EPOCH + 1);
    LocalSnapshot piece =
        new LocalSnapshot(
            7,
            "b",
            new TreeMap<>(Map.of("a", 40L)),
            new TreeMap<>(Map.of("a", 30L)),
            new TreeMap<>(Map.of("a", List.of(new InTransitMessage(31, new byte[1])))),
            null);

    assertThatThrownBy(() -> core.restore(EPOCH + 1, piece, new byte[0]))
        .hasMessageContaining("cannot read this state");
    assertThat(core.engine().sent("a")).isEqualTo(2);
    assertThat(core.engine().received("a")).isZero();

    List<WorkerEffect> resumed = core.resume(EPOCH + 1);
    assertThat(resumed).noneMatch(e -> e instanceof WorkerEffect.Renumber);
    assertThat(delivered).as("nothing of the snapshot's recording is replayed").isEmpty();
  }
}
