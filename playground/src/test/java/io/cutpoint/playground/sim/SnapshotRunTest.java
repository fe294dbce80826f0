package io.cutpoint.playground.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.cut.RecordedMessage;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SnapshotRunTest {

  private static final Set<String> WORKERS = Set.of("p1", "p2");
  private static final Set<ChannelId> CHANNELS = Set.of(ChannelId.of("p1", "p2"), ChannelId.of("p2", "p1"));

  private static CompletedLocalSnapshot piece(String me, String peer, long sent, long received,
      List<RecordedMessage> recorded, long balance) {
    LocalSnapshot cut = new LocalSnapshot(1, me, new TreeMap<>(Map.of(peer, sent)),
        new TreeMap<>(Map.of(peer, received)), new TreeMap<>(Map.of(peer, recorded)),
        me.equals("p1") ? null : "p1");
    return new CompletedLocalSnapshot(cut, CapturedState.of(Money.encode(balance)), 0);
  }

  @Test
  void aCutTheVerifierAcceptsIsStillFlaggedWhenItDoesNotHoldAllTheMoney() {
    SnapshotRun run = new SnapshotRun(1, List.of("p1"), 0);
    // p1 sent 1 transfer of 7 to p2 before recording, p2 recorded it in transit: 93 + 100 + 7 = 200.
    // Here p2 captured 90 instead of 100: every counter agrees, the money does not.
    assertThat(run.add(piece("p1", "p2", 1, 0, List.of(), 93), WORKERS, CHANNELS, 200, 5)).isFalse();
    assertThat(run.add(piece("p2", "p1", 0, 0, List.of(new RecordedMessage(1, Money.encode(7))), 90),
        WORKERS, CHANNELS, 200, 9)).isTrue();

    assertThat(run.status()).isEqualTo(SnapshotRun.Status.INCONSISTENT);
    assertThat(run.violations()).containsExactly("bank: the cut holds 190 but the system holds 200");
    assertThat(run.finishedAt()).isEqualTo(9);
  }

  @Test
  void aCutHoldingAllTheMoneyIsConsistent() {
    SnapshotRun run = new SnapshotRun(1, List.of("p1"), 0);
    run.add(piece("p1", "p2", 1, 0, List.of(), 93), WORKERS, CHANNELS, 200, 5);
    run.add(piece("p2", "p1", 0, 0, List.of(new RecordedMessage(1, Money.encode(7))), 100), WORKERS, CHANNELS, 200, 9);

    assertThat(run.status()).isEqualTo(SnapshotRun.Status.CONSISTENT);
    assertThat(run.violations()).isEmpty();
    assertThat(run.moneyInCut()).isEqualTo(200);
  }
}
