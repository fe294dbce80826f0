package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.Item;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The effects of one turn go to their channels in the order the core emitted them: data messages to
 * one channel are appended in runs, under one hold of the channel's monitor, and a run ends at
 * anything else (a marker, a message to another channel).
 */
class WireEffectsTest {

  private static final byte[] PAYLOAD = {1, 2, 3};

  @Test
  void runsOfDataKeepTheirOrderAroundMarkersAndOtherChannels() {
    WorkerMetrics metrics = new WorkerMetrics(null);
    ChannelSender toC = sender("c", metrics);
    ChannelSender toD = sender("d", metrics);
    WireEffects effects =
        new WireEffects(
            "b",
            Map.of("c", toC, "d", toD),
            new ReadGate(Runnable::run, () -> null, java.time.Duration.ZERO),
            from -> {},
            (from, delay) -> {});

    effects.apply(
        List.of(
            new WorkerEffect.SendData("c", 1, PAYLOAD),
            new WorkerEffect.SendData("c", 2, PAYLOAD),
            new WorkerEffect.SendMarker("c", 7, 2),
            new WorkerEffect.SendData("c", 3, PAYLOAD),
            new WorkerEffect.SendData("d", 1, PAYLOAD),
            new WorkerEffect.SendData("d", 2, PAYLOAD),
            new WorkerEffect.SendData("c", 4, PAYLOAD)));
    effects.apply(List.of(new WorkerEffect.SendData("d", 3, PAYLOAD)));

    assertThat(describe(toC.bufferedItems()))
        .containsExactly("1:data 1", "2:data 2", "3:marker 7 after 2", "4:data 3", "5:data 4");
    assertThat(describe(toD.bufferedItems())).containsExactly("1:data 1", "2:data 2", "3:data 3");
  }

  private static ChannelSender sender(String to, WorkerMetrics metrics) {
    return new ChannelSender("b", to, 0, ChannelOptions.defaults(), new OfflineHooks(metrics));
  }

  /** "position:data seq" or "position:marker id after sent". */
  private static List<String> describe(List<Item> items) {
    return items.stream()
        .map(
            i ->
                i.getPosition()
                    + ":"
                    + (i.hasData()
                        ? "data " + i.getData().getSeq()
                        : "marker "
                            + i.getMarker().getSnapshotId()
                            + " after "
                            + i.getMarker().getSentCount()))
        .toList();
  }
}
