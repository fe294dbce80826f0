package io.cutpoint.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Every rule of {@link CutVerifier}, each shown on a cut that breaks exactly that rule. */
class CutVerifierTest {

  static final Set<String> WORKERS = Set.of("a", "b");
  static final Set<ChannelId> CHANNELS = Set.of(ChannelId.of("a", "b"), ChannelId.of("b", "a"));

  static List<InTransitMessage> msgs(long... seqs) {
    return Arrays.stream(seqs)
        .mapToObj(s -> new InTransitMessage(s, new byte[] {(byte) s}))
        .toList();
  }

  static SortedMap<String, Long> counts(Object... peerAndCount) {
    SortedMap<String, Long> m = new TreeMap<>();
    for (int i = 0; i < peerAndCount.length; i += 2) {
      m.put((String) peerAndCount[i], ((Number) peerAndCount[i + 1]).longValue());
    }
    return m;
  }

  static SortedMap<String, List<InTransitMessage>> rec(String peer, List<InTransitMessage> msgs) {
    SortedMap<String, List<InTransitMessage>> m = new TreeMap<>();
    m.put(peer, msgs);
    return m;
  }

  /** a initiated; b recorded on a's marker. a->b: 3 sent, 3 received. b->a: 2 sent, 1 received. */
  static LocalSnapshot a() {
    return new LocalSnapshot(7, "a", counts("b", 3), counts("b", 1), rec("b", msgs(2)), null);
  }

  static LocalSnapshot b() {
    return new LocalSnapshot(7, "b", counts("a", 2), counts("a", 3), rec("a", msgs()), "a");
  }

  static List<CutViolation> verify(LocalSnapshot... pieces) {
    return CutVerifier.verify(Cut.of(7, WORKERS, CHANNELS, List.of(pieces)));
  }

  static List<String> messages(List<CutViolation> violations) {
    return violations.stream().map(CutViolation::toString).toList();
  }

  @Test
  void aConsistentCutHasNoViolations() {
    assertThat(verify(a(), b())).isEmpty();
  }

  @Test
  void aCutWithoutChannelsOrWithOneLoneWorkerIsConsistent() {
    LocalSnapshot lone = new LocalSnapshot(1, "x", counts(), counts(), new TreeMap<>(), null);
    assertThat(CutVerifier.verify(Cut.of(1, Set.of("x"), Set.of(), List.of(lone)))).isEmpty();
  }

  @Test
  void aMissingPieceIsReported() {
    assertThat(messages(verify(a()))).containsExactly("worker b: no local snapshot reported");
  }

  @Test
  void aPieceFromAWorkerOutsideTheSnapshotIsReported() {
    LocalSnapshot stranger = new LocalSnapshot(7, "z", counts(), counts(), new TreeMap<>(), null);
    assertThat(messages(verify(a(), b(), stranger)))
        .containsExactly("worker z: reported a piece but is not part of the snapshot");
  }

  @Test
  void aPieceFiledUnderAnotherWorkerIsReported() {
    SortedMap<String, LocalSnapshot> pieces = new TreeMap<>(Map.of("a", a(), "b", a()));
    Cut cut =
        new Cut(7, new java.util.TreeSet<>(WORKERS), new java.util.TreeSet<>(CHANNELS), pieces);
    assertThat(messages(CutVerifier.verify(cut)))
        .contains("worker b: piece is labelled as worker a");
  }

  @Test
  void aPieceOfAnotherSnapshotIsReported() {
    LocalSnapshot other =
        new LocalSnapshot(8, "b", counts("a", 2), counts("a", 3), rec("a", msgs()), "a");
    assertThat(messages(verify(a(), other)))
        .containsExactly("worker b: piece belongs to snapshot 8, not 7");
  }

  @Test
  void countersAndRecordingsOutsideTheTopologyAreReported() {
    LocalSnapshot extra =
        new LocalSnapshot(
            7,
            "b",
            counts("a", 2, "z", 1),
            counts("a", 3, "y", 0),
            new TreeMap<>(Map.of("a", msgs(), "q", msgs(1))),
            "a");
    assertThat(messages(verify(a(), extra)))
        .containsExactly(
            "b->z: sent count recorded for a channel outside the topology",
            "q->b: messages recorded on a channel outside the topology",
            "y->b: received count recorded for a channel outside the topology");
  }

  @Test
  void aFirstMarkerChannelOutsideTheTopologyIsReported() {
    LocalSnapshot bad =
        new LocalSnapshot(7, "b", counts("a", 2), counts("a", 3), rec("a", msgs()), "z");
    assertThat(messages(verify(a(), bad)))
        .containsExactly(
            "z->b: the first marker is said to come on a channel outside the topology");
  }

  @Test
  void missingCountsAreReported() {
    LocalSnapshot noSent =
        new LocalSnapshot(7, "a", counts(), counts("b", 1), rec("b", msgs(2)), null);
    LocalSnapshot noReceived =
        new LocalSnapshot(7, "b", counts("a", 2), counts(), rec("a", msgs()), "a");
    assertThat(messages(verify(noSent, noReceived)))
        .containsExactly("a->b: a recorded no sent count", "a->b: b recorded no received count");
  }

  @Test
  void negativeCountsAreReported() {
    LocalSnapshot neg =
        new LocalSnapshot(7, "b", counts("a", -1), counts("a", 3), rec("a", msgs()), "a");
    LocalSnapshot negA =
        new LocalSnapshot(7, "a", counts("b", 3), counts("b", -1), rec("b", msgs()), null);
    assertThat(messages(verify(negA, neg)))
        .containsExactly(
            "b->a: negative count (sent -1, received -1): sequence numbers start at 1 and counts at 0");
  }

  @Test
  void receivingMoreThanWasSentIsReported() {
    LocalSnapshot greedy =
        new LocalSnapshot(7, "b", counts("a", 2), counts("a", 4), rec("a", msgs()), "a");
    assertThat(messages(verify(a(), greedy)))
        .containsExactly(
            "a->b: received 4 but only 3 sent: the cut records receipts whose sends it does not record");
  }

  @Test
  void messagesOnTheFirstMarkerChannelAreReported() {
    LocalSnapshot a =
        new LocalSnapshot(7, "a", counts("b", 4), counts("b", 1), rec("b", msgs(2)), null);
    LocalSnapshot b =
        new LocalSnapshot(7, "b", counts("a", 2), counts("a", 3), rec("a", msgs(4)), "a");
    assertThat(messages(verify(a, b)))
        .containsExactly(
            "a->b: the channel whose marker started the recording holds 1 messages; it must be empty");
  }

  @Test
  void tooFewOrTooManyRecordedMessagesAreReported() {
    LocalSnapshot lost =
        new LocalSnapshot(7, "a", counts("b", 3), counts("b", 0), rec("b", msgs(2)), null);
    assertThat(messages(verify(lost, b())))
        .containsExactly(
            "b->a: recorded 1 messages in transit, expected 2 (seq 1..2)",
            "b->a: recorded seq 2 where 1 was expected: messages must be contiguous and in order");
    LocalSnapshot extra =
        new LocalSnapshot(7, "a", counts("b", 3), counts("b", 1), rec("b", msgs(2, 3)), null);
    assertThat(messages(verify(extra, b())))
        .containsExactly("b->a: recorded 2 messages in transit, expected 1 (seq 2..2)");
  }

  @Test
  void aGapOrAReorderingIsReportedEvenWithTheRightNumberOfMessages() {
    LocalSnapshot b =
        new LocalSnapshot(7, "b", counts("a", 4), counts("a", 3), rec("a", msgs()), "a");
    LocalSnapshot gap =
        new LocalSnapshot(7, "a", counts("b", 3), counts("b", 1), rec("b", msgs(2, 4, 5)), null);
    assertThat(messages(verify(gap, b)))
        .containsExactly(
            "b->a: recorded seq 4 where 3 was expected: messages must be contiguous and in order");
    LocalSnapshot swapped =
        new LocalSnapshot(7, "a", counts("b", 3), counts("b", 1), rec("b", msgs(3, 2, 4)), null);
    assertThat(messages(verify(swapped, b)))
        .containsExactly(
            "b->a: recorded seq 3 where 2 was expected: messages must be contiguous and in order");
  }

  @Test
  void everyViolationIsReportedWorkerLevelFirstThenByChannel() {
    LocalSnapshot stranger =
        new LocalSnapshot(7, "z", counts("a", 1), counts(), new TreeMap<>(), null);
    LocalSnapshot greedy =
        new LocalSnapshot(7, "b", counts("a", 2), counts("a", 4), rec("a", msgs()), "a");
    List<CutViolation> found = verify(a(), greedy, stranger);
    assertThat(messages(found))
        .containsExactly(
            "worker z: reported a piece but is not part of the snapshot",
            "a->b: received 4 but only 3 sent: the cut records receipts whose sends it does not record",
            "z->a: sent count recorded for a channel outside the topology");
  }

  @Test
  void aBadCutNeverThrows() {
    LocalSnapshot empty = new LocalSnapshot(9, "b", counts(), counts(), new TreeMap<>(), "nobody");
    assertThat(verify(empty)).isNotEmpty();
  }
}
