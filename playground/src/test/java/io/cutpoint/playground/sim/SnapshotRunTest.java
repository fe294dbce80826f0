package io.cutpoint.playground.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SnapshotRunTest {

  private static final Set<String> WORKERS = Set.of("p1", "p2");
  private static final Set<ChannelId> CHANNELS =
      Set.of(ChannelId.of("p1", "p2"), ChannelId.of("p2", "p1"));

  private static CompletedLocalSnapshot piece(
      String me,
      String peer,
      long sent,
      long received,
      List<InTransitMessage> recorded,
      long balance) {
    LocalSnapshot cut =
        new LocalSnapshot(
            1,
            me,
            new TreeMap<>(Map.of(peer, sent)),
            new TreeMap<>(Map.of(peer, received)),
            new TreeMap<>(Map.of(peer, recorded)),
            me.equals("p1") ? null : "p1");
    return new CompletedLocalSnapshot(cut, CapturedState.of(Money.encode(balance)), 0);
  }

  /**
   * p1 initiates; p2 sent one transfer of 7 before p1's marker reached it, p1 recorded it in
   * transit.
   */
  private static SnapshotRun run(long p2Balance) {
    SnapshotRun run = new SnapshotRun(1, List.of("p1"), 0);
    assertThat(
            run.add(
                piece("p1", "p2", 0, 0, List.of(new InTransitMessage(1, Money.encode(7))), 100),
                WORKERS,
                CHANNELS,
                200,
                5))
        .isFalse();
    assertThat(run.add(piece("p2", "p1", 1, 0, List.of(), p2Balance), WORKERS, CHANNELS, 200, 9))
        .isTrue();
    return run;
  }

  @Test
  void aCutTheVerifierAcceptsIsStillFlaggedWhenItDoesNotHoldAllTheMoney() {
    // Every counter agrees; p2 captured 90 where 100 + 93 + 7 would hold all the money.
    SnapshotRun run = run(90);

    assertThat(run.status()).isEqualTo(SnapshotRun.Status.INCONSISTENT);
    assertThat(run.violations())
        .containsExactly("bank: the cut holds 197 but the system holds 200");
    assertThat(run.finishedAt()).isEqualTo(9);
  }

  @Test
  void aCutHoldingAllTheMoneyIsConsistent() {
    SnapshotRun run = run(93);

    assertThat(run.status()).isEqualTo(SnapshotRun.Status.CONSISTENT);
    assertThat(run.violations()).isEmpty();
    assertThat(run.moneyInCut()).isEqualTo(200);
  }
}
