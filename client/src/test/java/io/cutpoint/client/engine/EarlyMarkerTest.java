package io.cutpoint.client.engine;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.client.engine.RecordingOutput.Completed;
import io.cutpoint.client.engine.RecordingOutput.Delivered;
import io.cutpoint.client.engine.RecordingOutput.MarkerSent;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SnapshotEngine#onEarlyMarker}: a copy of a marker that overtook the data queued before it
 * records the worker at once, and the channel's state is the overtaken data, up to the marker's
 * boundary.
 */
class EarlyMarkerTest {

  private final RecordingOutput out = new RecordingOutput();
  private final List<Long> captures = new ArrayList<>();

  private SnapshotEngine engine(List<String> outgoing, List<String> incoming) {
    return engine(outgoing, incoming, EngineOptions.defaults());
  }

  private SnapshotEngine engine(List<String> outgoing, List<String> incoming, EngineOptions o) {
    return new SnapshotEngine(
        "w",
        outgoing,
        incoming,
        id -> {
          captures.add(id);
          return CapturedState.of(("state@" + id).getBytes(UTF_8));
        },
        out,
        o);
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static List<Long> seqs(List<InTransitMessage> messages) {
    return messages.stream().map(InTransitMessage::seq).toList();
  }

  @Test
  void anEarlyFirstMarkerRecordsAtOnceAndKeepsTheOvertakenDataAsItsChannelsState() {
    SnapshotEngine e = engine(List.of("q"), List.of("x"));
    e.onData("x", 1, b("before"));
    e.onEarlyMarker("x", 9, 3); // x had sent 3 when it recorded; 1 arrived

    assertThat(captures).containsExactly(9L);
    assertThat(out.markers()).containsExactly(new MarkerSent("q", 9, 0));
    assertThat(out.completed()).isEmpty();
    e.onData("x", 2, b("overtaken"));
    assertThat(out.completed()).isEmpty();
    e.onData("x", 3, b("overtaken too"));

    LocalSnapshot piece = out.completed().get(0).cut();
    assertThat(piece.received()).containsEntry("x", 1L);
    assertThat(seqs(piece.recorded("x"))).containsExactly(2L, 3L);
    assertThat(piece.firstMarkerFrom())
        .as("the channel of the first marker is not empty, so the piece names none")
        .isNull();
    assertThat(out.of(Delivered.class)).extracting(Delivered::seq).containsExactly(1L, 2L, 3L);

    e.onMarker("x", 9, 3); // the in-order copy, after message 3
    e.onData("x", 4, b("after"));
    assertThat(out.completed()).hasSize(1);
    assertThat(e.ignoredMarkers()).isEqualTo(1);
    assertThat(captures).containsExactly(9L);
  }

  @Test
  void theLastOvertakenMessageIsDeliveredBeforeThePieceCompletesAsAfterAMarker() {
    SnapshotEngine e = engine(List.of(), List.of("x"));
    e.onEarlyMarker("x", 5, 1);
    e.onData("x", 1, b("due"));
    assertThat(out.events())
        .hasSize(2)
        .satisfies(
            events -> {
              assertThat(events.get(0)).isInstanceOf(Delivered.class);
              assertThat(events.get(1)).isInstanceOf(Completed.class);
            });
  }

  @Test
  void aHandlerThatThrowsOnTheLastOvertakenMessageDoesNotLeaveThePieceOpen() {
    RecordingOutput throwing =
        new RecordingOutput()
            .onDeliver(
                d -> {
                  throw new IllegalStateException("the application failed on " + d.seq());
                });
    SnapshotEngine e =
        new SnapshotEngine(
            "w",
            List.of(),
            List.of("x"),
            id -> CapturedState.of(b("s")),
            throwing,
            EngineOptions.defaults());
    e.onEarlyMarker("x", 5, 1);
    assertThatThrownBy(() -> e.onData("x", 1, b("due")))
        .hasMessageContaining("the application failed");
    assertThat(throwing.completed()).hasSize(1);
    assertThat(e.inFlight()).isEmpty();
  }

  @Test
  void anEarlyMarkerWithNothingDueActsAsTheMarkerItself() {
    SnapshotEngine e = engine(List.of(), List.of("x", "y"));
    e.onData("x", 1, b("a"));
    e.onEarlyMarker("x", 7, 1);
    e.onData("y", 1, b("in flight on y"));
    e.onEarlyMarker("y", 7, 1);

    LocalSnapshot piece = out.completed().get(0).cut();
    assertThat(piece.firstMarkerFrom()).isEqualTo("x");
    assertThat(piece.recorded("x")).isEmpty();
    assertThat(seqs(piece.recorded("y"))).containsExactly(1L);
  }

  @Test
  void onARecordedChannelTheBoundaryStopsTheRecordingAtTheSendersCut() {
    SnapshotEngine e = engine(List.of(), List.of("x", "y"));
    e.startSnapshot(3); // records x and y
    e.onData("y", 1, b("y1"));
    e.onEarlyMarker("y", 3, 2); // y recorded after sending 2
    e.onEarlyMarker("x", 3, 0); // nothing due on x: closed at once
    assertThat(out.completed()).isEmpty();
    e.onData("y", 2, b("y2"));
    e.onData("y", 3, b("y3, after y's cut"));

    LocalSnapshot piece = out.completed().get(0).cut();
    assertThat(seqs(piece.recorded("y"))).containsExactly(1L, 2L);
    assertThat(piece.recorded("x")).isEmpty();
    assertThat(piece.initiator()).isTrue();
  }

  @Test
  void twoSnapshotsOnOneChannelCloseEachAtItsOwnBoundary() {
    SnapshotEngine e = engine(List.of(), List.of("x"));
    e.onEarlyMarker("x", 1, 1);
    e.onEarlyMarker("x", 2, 3);
    e.onData("x", 1, b("1"));
    e.onData("x", 2, b("2"));
    e.onData("x", 3, b("3"));

    List<CompletedLocalSnapshot> done = out.completed();
    assertThat(done).extracting(d -> d.cut().snapshotId()).containsExactly(1L, 2L);
    assertThat(seqs(done.get(0).cut().recorded("x"))).containsExactly(1L);
    assertThat(seqs(done.get(1).cut().recorded("x"))).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aCopyThatComesAfterTheMarkerItselfIsIgnoredAndStartsNothing() {
    SnapshotEngine e = engine(List.of(), List.of("x", "y"));
    e.onMarker("x", 4, 0); // the in-order copy came first
    e.onData("x", 1, b("after x's cut"));
    e.onEarlyMarker("x", 4, 0); // its count is below what arrived: late
    assertThat(e.ignoredMarkers()).isEqualTo(1);
    e.onMarker("y", 4, 0);
    assertThat(out.completed()).hasSize(1);

    e.onEarlyMarker("y", 4, 0); // a late copy of a completed snapshot
    assertThat(e.ignoredMarkers()).isEqualTo(2);
    assertThat(captures).containsExactly(4L);
    assertThat(e.inFlight()).isEmpty();
  }

  @Test
  void aSecondEarlyCopyOnABoundedChannelIsIgnored() {
    SnapshotEngine e = engine(List.of(), List.of("x", "y"));
    e.onEarlyMarker("x", 6, 2);
    e.onEarlyMarker("y", 6, 0);
    e.onData("x", 1, b("1"));
    e.onEarlyMarker("x", 6, 2);
    assertThat(e.ignoredMarkers()).isEqualTo(1);
    e.onData("x", 2, b("2"));
    assertThat(seqs(out.completed().get(0).cut().recorded("x"))).containsExactly(1L, 2L);
  }

  @Test
  void anEarlyMarkerMustNameADeclaredChannelAndCarryItsCount() {
    SnapshotEngine e = engine(List.of(), List.of("x"));
    assertThatThrownBy(() -> e.onEarlyMarker("nobody", 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a declared incoming channel");
    assertThatThrownBy(() -> e.onEarlyMarker("x", 1, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must carry its sender's count");
    assertThat(captures).isEmpty();
    assertThat(e.inFlight()).isEmpty();
  }

  @Test
  void theRecordingLimitHoldsForOvertakenData() {
    SnapshotEngine e =
        engine(
            List.of(), List.of("x"), EngineOptions.defaults().withMaxRecordedBytesPerSnapshot(3));
    e.onEarlyMarker("x", 8, 5);
    e.onData("x", 1, b("ab"));
    e.onData("x", 2, b("cd"));
    assertThat(out.failures())
        .singleElement()
        .satisfies(f -> assertThat(f.snapshotId()).isEqualTo(8L));
    e.onData("x", 3, b("e"));
    e.onData("x", 4, b("f"));
    e.onData("x", 5, b("g"));
    e.onMarker("x", 8, 5);
    assertThat(out.completed()).isEmpty();
    assertThat(e.ignoredMarkers()).isEqualTo(1);
    assertThat(out.of(Delivered.class)).hasSize(5);
  }

  private static List<InTransitMessage> atHand(long from, long to) {
    List<InTransitMessage> messages = new ArrayList<>();
    for (long seq = from; seq <= to; seq++) {
      messages.add(new InTransitMessage(seq, b("m" + seq)));
    }
    return messages;
  }

  @Test
  void withEveryDueMessageAtHandThePieceCompletesBeforeTheBacklogIsDelivered() {
    SnapshotEngine e = engine(List.of("q"), List.of("x"));
    e.onData("x", 1, b("delivered"));
    List<InTransitMessage> backlog = atHand(2, 5); // read ahead, not handed over yet
    e.onEarlyMarker("x", 9, 4, backlog); // the marker sits between 4 and 5

    LocalSnapshot piece = out.completed().get(0).cut();
    assertThat(piece.received()).containsEntry("x", 1L);
    assertThat(seqs(piece.recorded("x"))).containsExactly(2L, 3L, 4L);
    assertThat(out.of(Delivered.class)).hasSize(1);

    for (InTransitMessage m : backlog.subList(0, 3)) {
      e.onData("x", m.seq(), m.payload());
    }
    e.onMarker("x", 9, 4); // the marker itself, in order
    e.onData("x", 5, backlog.get(3).payload());
    assertThat(out.of(Delivered.class))
        .extracting(Delivered::seq)
        .containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(out.completed()).hasSize(1);
    assertThat(seqs(piece.recorded("x"))).as("nothing recorded twice").containsExactly(2L, 3L, 4L);
    assertThat(e.inFlight()).isEmpty();
  }

  @Test
  void withSomeDueMessagesAtHandTheRestIsRecordedAsItArrives() {
    SnapshotEngine e = engine(List.of(), List.of("x"));
    List<InTransitMessage> backlog = atHand(1, 2);
    e.onEarlyMarker("x", 3, 4, backlog); // 3 and 4 have not arrived yet
    assertThat(out.completed()).isEmpty();
    e.onData("x", 1, backlog.get(0).payload());
    e.onData("x", 2, backlog.get(1).payload());
    e.onData("x", 3, b("m3"));
    assertThat(out.completed()).isEmpty();
    e.onData("x", 4, b("m4"));
    assertThat(seqs(out.completed().get(0).cut().recorded("x"))).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aSnapshotThatRecordedTheChannelBeforeStillRecordsTheMessagesAtHandWhenTheyArrive() {
    SnapshotEngine e = engine(List.of(), List.of("x", "y"));
    e.onMarker("y", 1, 0); // snapshot 1 records x from here on
    List<InTransitMessage> backlog = atHand(1, 2);
    e.onEarlyMarker("x", 2, 2, backlog); // snapshot 2: first marker, both messages at hand
    assertThat(out.completed()).isEmpty(); // 2 waits for y
    e.onData("x", 1, backlog.get(0).payload());
    e.onData("x", 2, backlog.get(1).payload());
    e.onMarker("x", 1, 2);
    e.onMarker("y", 2, 0);
    List<CompletedLocalSnapshot> done = out.completed();
    assertThat(done).extracting(d -> d.cut().snapshotId()).containsExactly(1L, 2L);
    assertThat(seqs(done.get(0).cut().recorded("x"))).containsExactly(1L, 2L);
    assertThat(seqs(done.get(1).cut().recorded("x"))).containsExactly(1L, 2L);
    assertThat(done.get(1).cut().firstMarkerFrom()).isNull();
  }

  @Test
  void messagesAtHandBeyondTheBoundaryAreNotRecorded() {
    SnapshotEngine e = engine(List.of(), List.of("x"));
    e.onEarlyMarker("x", 4, 1, atHand(1, 3));
    assertThat(seqs(out.completed().get(0).cut().recorded("x"))).containsExactly(1L);
  }

  @Test
  void messagesAtHandWithAGapAreAProtocolViolationThatChangesNothing() {
    SnapshotEngine e = engine(List.of("q"), List.of("x"));
    List<InTransitMessage> gap =
        List.of(new InTransitMessage(1, b("1")), new InTransitMessage(3, b("3")));
    assertThatThrownBy(() -> e.onEarlyMarker("x", 4, 3, gap))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("3 where 2 was expected");
    assertThat(captures).isEmpty();
    assertThat(out.events()).isEmpty();
    assertThat(e.inFlight()).isEmpty();
  }

  @Test
  void theRecordingLimitCountsTheMessagesAtHand() {
    SnapshotEngine e =
        engine(
            List.of(), List.of("x"), EngineOptions.defaults().withMaxRecordedBytesPerSnapshot(3));
    e.onEarlyMarker("x", 8, 2, atHand(1, 2)); // "m1" and "m2": 4 bytes
    assertThat(out.failures())
        .singleElement()
        .satisfies(f -> assertThat(f.snapshotId()).isEqualTo(8L));
    assertThat(out.completed()).isEmpty();
  }
}
