package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.cut.ChannelId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The simulated channels are what the engine assumes: reliable and FIFO, with random delays. */
class SimNetworkTest {

  @Test
  void eachChannelDeliversInOrderWhileChannelsOvertakeEachOther() {
    SimNetwork net =
        new SimNetwork(
            List.of(ChannelId.of("a", "c"), ChannelId.of("b", "c")), new SplittableRandom(7), 50);
    Map<String, List<Long>> arrived = new HashMap<>();
    List<String> interleaving = new ArrayList<>();
    SimNetwork.Receiver c =
        (from, item) -> {
          arrived.computeIfAbsent(from, k -> new ArrayList<>()).add(((SimNetwork.Data) item).seq());
          interleaving.add(from);
        };
    for (long i = 1; i <= 200; i++) {
      long seq = i;
      net.at(
          i,
          () -> {
            net.transmit("a", "c", new SimNetwork.Data(seq, new byte[0]), c);
            net.transmit("b", "c", new SimNetwork.Data(seq, new byte[0]), c);
          });
    }
    while (net.step()) {
      // run to the end
    }
    List<Long> expected = java.util.stream.LongStream.rangeClosed(1, 200).boxed().toList();
    assertThat(arrived.get("a")).isEqualTo(expected);
    assertThat(arrived.get("b")).isEqualTo(expected);
    // delays are random: the two channels do not simply alternate
    List<String> alternating = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      alternating.add("a");
      alternating.add("b");
    }
    assertThat(interleaving).isNotEqualTo(alternating);
    assertThat(net.inTransit()).isEmpty();
  }

  @Test
  void anUnknownChannelIsRejected() {
    SimNetwork net = new SimNetwork(List.of(), new SplittableRandom(1), 5);
    assertThatThrownBy(() -> net.transmit("a", "b", new SimNetwork.Marker(1, 0), (f, i) -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a->b");
  }
}
