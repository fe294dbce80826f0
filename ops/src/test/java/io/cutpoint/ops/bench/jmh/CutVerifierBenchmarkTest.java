package io.cutpoint.ops.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's cut is what it claims: 32 workers, 992 channels, consistent; and the check bites.
 */
class CutVerifierBenchmarkTest {

  @Test
  void meshCutIsConsistentAndABrokenCountIsCaught() {
    Cut cut = CutVerifierBenchmark.meshCut(32);
    assertThat(cut.workers()).hasSize(32);
    assertThat(cut.channels()).hasSize(992);
    assertThat(CutVerifier.verify(cut)).isEmpty();

    LocalSnapshot w5 = cut.pieces().get("w5");
    java.util.SortedMap<String, Long> sent = new java.util.TreeMap<>(w5.sent());
    sent.put("w6", 97L); // w6 recorded 98 received: a message received but never sent
    List<LocalSnapshot> pieces = new ArrayList<>(cut.pieces().values());
    pieces.set(
        pieces.indexOf(w5), new LocalSnapshot(1, "w5", sent, w5.received(), w5.recordings(), "w1"));
    Cut broken = Cut.of(1, cut.workers(), cut.channels(), pieces);
    assertThat(CutVerifier.verify(broken)).isNotEmpty();
    assertThat(broken.channels()).contains(ChannelId.of("w5", "w6"));
  }
}
