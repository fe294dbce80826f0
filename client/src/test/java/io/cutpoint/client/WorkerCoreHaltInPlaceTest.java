package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A halt into the epoch a worker is already in (a welcome that holds the workers while a rollback
 * is prepared or retried) keeps the epoch's channel positions: its peers may still run in that
 * epoch, so restarting them would lose or refuse what flows on after a resume in place.
 */
class WorkerCoreHaltInPlaceTest {

  private static final long EPOCH = 3;

  private final List<Long> delivered = new ArrayList<>();
  private final WorkerCore core = TwoWayCore.of((from, seq, payload) -> delivered.add(seq), EPOCH);
  private final InboundLink link = new InboundLink() {};

  private static InboundFrame data(long position, long seq) {
    return new InboundFrame(
        EPOCH, List.of(new ChannelItem.Data(position, seq, new byte[1])), 9, true);
  }

  private List<WorkerEffect> halt(long epoch) {
    core.markHalted(epoch);
    return core.halt(epoch);
  }

  @Test
  void aHaltInPlaceKeepsTheReceiversPositionsSoThePeersNextFramesFollowOn() {
    core.attach("a", link);
    core.onFrame("a", link, data(1, 1));
    core.onFrame("a", link, data(2, 2));

    List<WorkerEffect> effects = halt(EPOCH);
    List<WorkerEffect> parked = core.onFrame("a", link, data(3, 3));
    List<WorkerEffect> resumed = core.resume(EPOCH);

    assertThat(effects).noneMatch(e -> e instanceof WorkerEffect.EnterEpoch);
    assertThat(parked).noneMatch(e -> e instanceof WorkerEffect.Refuse);
    assertThat(resumed).noneMatch(e -> e instanceof WorkerEffect.Refuse);
    assertThat(core.receiver("a").delivered()).isEqualTo(3);
    assertThat(delivered).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aHaltInPlaceKeepsTheSendersNumberingWhileAHaltIntoANewEpochRestartsIt() {
    core.send("a", new byte[1]);
    core.send("a", new byte[1]);

    assertThat(halt(EPOCH))
        .noneMatch(e -> e instanceof WorkerEffect.EnterEpoch || e instanceof WorkerEffect.Renumber);
    assertThat(halt(EPOCH + 1))
        .contains(new WorkerEffect.EnterEpoch(EPOCH + 1), new WorkerEffect.Renumber("a", 2));
    assertThat(core.epoch()).isEqualTo(EPOCH + 1);
  }
}
