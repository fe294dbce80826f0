package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.engine.EngineOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Items a forged or broken sender can put on a channel, at the level of the worker's core: each is
 * refused before it reaches the engine or the application, also when it is read ahead of its turn.
 * {@link ForgedFrameTest} sends such frames over gRPC.
 */
class WorkerCoreRefusalTest {

  private final List<Long> delivered = new ArrayList<>();
  private final InboundLink forged = new InboundLink() {};
  private final InboundLink real = new InboundLink() {};

  /** Worker b, one channel from a, markers read ahead (the default of Worker.Builder). */
  private final WorkerCore core =
      new WorkerCore(
          "b",
          new TreeSet<>(List.of("a")),
          new TreeSet<>(List.of("a")),
          new NoState(),
          (from, seq, payload) -> delivered.add(seq),
          new WorkerMetrics(null),
          EngineOptions.defaults().withNanoClock(() -> 0),
          8,
          true,
          new ParkingLimits(64, 1 << 20, Duration.ofSeconds(30)),
          0);

  private static InboundFrame frame(long epoch, ChannelItem... items) {
    return new InboundFrame(epoch, List.of(items), 10, true);
  }

  private static ChannelItem data(long position, long seq) {
    return new ChannelItem.Data(position, seq, new byte[] {1});
  }

  /**
   * A marker whose sent count disagrees with the data before it is refused in its turn (DATA_LOSS),
   * but read ahead it was already taken: it started a snapshot (state captured, markers sent) whose
   * recording of the channel stays open until the forged boundary and swallows the real sender's
   * later messages.
   */
  @Test
  void aMarkerReadAheadWithAWrongCountStartsNoSnapshot() {
    core.attach("a", forged);
    core.onFrame("a", forged, frame(0, data(1, 1), data(2, 2)));
    core.deliverNext("a");

    List<WorkerEffect> read = core.onFrame("a", forged, frame(0, new ChannelItem.Mark(3, 77, 999)));
    List<WorkerEffect> turn = core.deliverNext("a");
    assertThat(turn)
        .as("the marker's turn refuses the stream")
        .anyMatch(
            e ->
                e instanceof WorkerEffect.Refuse r && r.refusal().kind() == Refusal.Kind.DATA_LOSS);

    core.attach("a", real); // the real sender comes back and goes on
    core.onFrame("a", real, frame(0, data(3, 3), data(4, 4)));
    core.deliverNext("a");

    assertThat(core.engine().inFlight()).as("snapshots recording").isEmpty();
    assertThat(read)
        .as("read ahead, the refused marker captured the state and sent markers")
        .noneMatch(e -> e instanceof WorkerEffect.Captured || e instanceof WorkerEffect.SendMarker);
  }

  /**
   * An epoch of 2^63 or more on the wire (uint64) reads as a negative long: the frame is dropped as
   * one of an old epoch instead of refused as an epoch nobody announced.
   */
  @Test
  void aFrameOfAnEpochBeyondTwoToThe63IsRefusedNotDroppedAsOld() {
    core.attach("a", forged);
    List<WorkerEffect> effects = core.onFrame("a", forged, frame(-1L, data(1, 1)));
    assertThat(effects)
        .anyMatch(
            e ->
                e instanceof WorkerEffect.Refuse r
                    && r.refusal().kind() == Refusal.Kind.EPOCH_NOT_ANNOUNCED);
  }

  /**
   * Position 0 (or 2^63 and more on the wire) is no position a sender gives: refused, not skipped.
   */
  @Test
  void anItemAtPositionZeroOrBeyondTwoToThe63IsRefused() {
    core.attach("a", forged);
    core.onFrame("a", forged, frame(0, data(0, 1)));
    List<WorkerEffect> effects = core.deliverNext("a");
    assertThat(effects).anyMatch(e -> e instanceof WorkerEffect.Refuse);
  }
}
