package io.cutpoint.client.engine;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.cutpoint.client.engine.RecordingOutput.Completed;
import io.cutpoint.client.engine.RecordingOutput.Delivered;
import io.cutpoint.client.engine.RecordingOutput.Failed;
import io.cutpoint.client.engine.RecordingOutput.MarkerSent;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SnapshotEngineTest {

  private final AtomicLong clock = new AtomicLong(1_000);
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
        o.withNanoClock(clock::get));
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  private static List<Long> seqs(List<InTransitMessage> messages) {
    return messages.stream().map(InTransitMessage::seq).toList();
  }

  /**
   * The timeline of a completed local snapshot, on the engine's clock: the capture began and ended
   * (the clock moves during the application's capture), then each recorded channel closed as its
   * marker arrived, and the last marker completed it.
   */
  @Test
  void aCompletedLocalSnapshotCarriesWhenEachStepHappened() {
    SnapshotEngine e =
        new SnapshotEngine(
            "w",
            List.of("x"),
            List.of("x", "y", "z"),
            id -> {
              clock.addAndGet(40); // a capture that takes 40 ns
              return CapturedState.of(b("s"));
            },
            out,
            EngineOptions.defaults().withNanoClock(clock::get));
    clock.set(2_000);
    e.onMarker("y", 9, 0); // began at 2,000, captured at 2,040; y's channel is empty, not recorded
    clock.set(2_500);
    e.onMarker("z", 9, 0);
    clock.set(3_100);
    e.onMarker("x", 9, 0);

    LocalTimeline t = out.completed().get(0).timeline();
    assertThat(t.known()).isTrue();
    assertThat(t.beganNanos()).isEqualTo(2_000);
    assertThat(t.capturedNanos()).isEqualTo(2_040);
    assertThat(t.closedNanos()).containsExactly(entry("x", 3_100L), entry("z", 2_500L));
    assertThat(t.completedNanos()).isEqualTo(3_100);
    assertThat(out.completed().get(0).recordingNanos()).isEqualTo(3_100 - 2_040);
  }

  @Test
  void sendNumbersMessagesFromOnePerChannel() {
    SnapshotEngine e = engine(List.of("a", "b"), List.of());
    assertThat(e.send("a", b("x"))).isEqualTo(1);
    assertThat(e.send("a", b("x"))).isEqualTo(2);
    assertThat(e.send("b", b("x"))).isEqualTo(1);
    assertThat(e.sent("a")).isEqualTo(2);
    assertThat(e.sent("b")).isEqualTo(1);
  }

  @Test
  void undeclaredChannelsAreAClearError() {
    SnapshotEngine e = engine(List.of("a"), List.of("b"));
    assertThatThrownBy(() -> e.send("b", b("x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("b")
        .hasMessageContaining("not a declared outgoing channel");
    assertThatThrownBy(() -> e.onData("a", 1, b("x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a declared incoming channel");
    assertThatThrownBy(() -> e.onMarker("zz", 7, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("marker of snapshot 7 from zz");
    assertThatThrownBy(() -> e.sent("zz")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> e.received("a")).isInstanceOf(IllegalArgumentException.class);
    assertThat(out.events()).isEmpty();
  }

  @Test
  void duplicateOrEmptyPeersAreRejected() {
    assertThatThrownBy(() -> engine(List.of("a", "a"), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("declared twice");
    assertThatThrownBy(() -> engine(List.of(), List.of("")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void dataIsDeliveredInOrderAndAGapIsAProtocolViolation() {
    SnapshotEngine e = engine(List.of(), List.of("a"));
    e.onData("a", 1, b("one"));
    assertThatThrownBy(() -> e.onData("a", 3, b("three")))
        .isInstanceOf(ProtocolViolationException.class)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("data message 3")
        .hasMessageContaining("2 was expected");
    assertThatThrownBy(() -> e.onData("a", 1, b("dup")))
        .isInstanceOf(ProtocolViolationException.class);
    e.onData("a", 2, b("two"));
    assertThat(out.of(Delivered.class)).extracting(Delivered::seq).containsExactly(1L, 2L);
    assertThat(e.received("a")).isEqualTo(2);
  }

  @Test
  void initiatorRecordsStateSendsSortedMarkersAndRecordsEveryIncomingChannel() {
    SnapshotEngine e = engine(List.of("c", "a", "b"), List.of("y", "x"));
    e.send("b", b("m"));
    e.onData("x", 1, b("before"));
    e.startSnapshot(5);
    assertThat(captures).containsExactly(5L);
    assertThat(out.markers())
        .containsExactly(
            new MarkerSent("a", 5, 0), new MarkerSent("b", 5, 1), new MarkerSent("c", 5, 0));
    assertThat(e.inFlight()).containsExactly(5L);

    e.onData("x", 2, b("in-x-2"));
    e.onData("y", 1, b("in-y-1"));
    e.onMarker("y", 5, 1);
    e.onData("x", 3, b("in-x-3"));
    clock.addAndGet(250);
    e.onMarker("x", 5, 3);

    assertThat(out.completed()).hasSize(1);
    CompletedLocalSnapshot done = out.completed().get(0);
    LocalSnapshot piece = done.cut();
    assertThat(piece.snapshotId()).isEqualTo(5);
    assertThat(piece.workerId()).isEqualTo("w");
    assertThat(piece.initiator()).isTrue();
    assertThat(piece.firstMarkerFrom()).isNull();
    assertThat(piece.sent()).containsExactly(entry("a", 0L), entry("b", 1L), entry("c", 0L));
    assertThat(piece.received()).containsEntry("x", 1L).containsEntry("y", 0L).hasSize(2);
    assertThat(seqs(piece.recorded("x"))).containsExactly(2L, 3L);
    assertThat(seqs(piece.recorded("y"))).containsExactly(1L);
    assertThat(new String(piece.recorded("x").get(0).payload(), UTF_8)).isEqualTo("in-x-2");
    assertThat(new String(done.state().state(), UTF_8)).isEqualTo("state@5");
    assertThat(done.recordingNanos()).isEqualTo(250);
    assertThat(e.inFlight()).isEmpty();
    // recorded messages are still delivered to the application
    assertThat(out.of(Delivered.class)).hasSize(4);
  }

  /**
   * The captured state is reported once the markers are out and before the local snapshot
   * completes, so that the session cuts it while the other markers come; a failed capture reports
   * none.
   */
  @Test
  void theCapturedStateIsReportedAfterTheMarkersAndBeforeTheSnapshotCompletes() {
    CallLog o = new CallLog();
    List<String> calls = o.calls;
    SnapshotEngine e =
        oneOutTwoIn(
            id -> {
              if (id == 13) {
                throw new IllegalStateException("no state");
              }
              return CapturedState.of(("state@" + id).getBytes(UTF_8));
            },
            o);

    e.onMarker("x", 9, 0);
    assertThat(calls).containsExactly("marker to q", "captured 9 state@9");
    e.onMarker("y", 9, 0);
    e.onMarker("x", 13, 0);
    assertThat(calls)
        .containsExactly("marker to q", "captured 9 state@9", "completed 9", "failed 13");
  }

  /**
   * Every capture ends in exactly one of completed, failed or dropped, so that what the session
   * prepared for its upload is let go: a snapshot aborted, or ended by a halt or a restore, is
   * dropped; one never captured here ends in nothing. Random schedules of one worker with two
   * incoming channels.
   */
  @Test
  void everyCaptureEndsInExactlyOneOfCompletedFailedOrDropped() {
    for (long seed = 1; seed <= 200; seed++) {
      java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
      CallLog o = new CallLog();
      SnapshotEngine e =
          oneOutTwoIn(
              id -> {
                if (id % 7 == 0) {
                  throw new IllegalStateException("no state");
                }
                return CapturedState.of(new byte[] {(byte) id});
              },
              o);
      for (int step = 0; step < 60; step++) {
        long id = 1 + random.nextInt(12);
        switch (random.nextInt(6)) {
          case 0 -> e.tryStartSnapshot(id);
          case 1 -> e.onMarker("x", id, 0);
          case 2 -> e.onMarker("y", id, 0);
          case 3 -> e.abort(id);
          case 4 -> e.abortAll();
          default -> e.restore(Map.of("q", 0L), Map.of("x", 0L, "y", 0L));
        }
      }
      e.abortAll();
      Map<Long, List<String>> ends = new java.util.HashMap<>();
      java.util.Set<Long> captured = new java.util.HashSet<>();
      for (String call : o.calls) {
        String[] words = call.split(" ");
        if (words[0].equals("marker")) {
          continue;
        }
        long id = Long.parseLong(words[1]);
        if (words[0].equals("captured")) {
          assertThat(captured.add(id)).as("seed %d: %d captured twice", seed, id).isTrue();
        } else {
          ends.computeIfAbsent(id, k -> new ArrayList<>()).add(words[0]);
        }
      }
      for (long id : captured) {
        assertThat(ends.get(id)).as("seed %d, snapshot %d", seed, id).hasSize(1);
      }
      for (Map.Entry<Long, List<String>> end : ends.entrySet()) {
        if (!end.getValue().equals(List.of("failed"))) { // a failed capture fails uncaptured
          assertThat(captured).as("seed %d: %s", seed, end).contains(end.getKey());
        }
      }
    }
  }

  @Test
  void aSnapshotAbortedHaltedOrRestoredAfterItsCaptureIsDropped() {
    CallLog o = new CallLog();
    SnapshotEngine e = oneOutTwoIn(id -> CapturedState.of(new byte[1]), o);

    e.onMarker("x", 1, 0);
    e.abort(1);
    e.abort(1); // once
    e.abort(2); // never captured here
    e.tryStartSnapshot(3);
    e.tryStartSnapshot(4);
    e.abortAll(); // a halt
    e.onMarker("y", 5, 0);
    e.restore(Map.of(), Map.of());

    assertThat(o.calls)
        .filteredOn(c -> c.startsWith("dropped"))
        .containsExactly("dropped 1", "dropped 3", "dropped 4", "dropped 5");
  }

  @Test
  void firstMarkerRecordsStateAndLeavesItsChannelEmpty() {
    SnapshotEngine e = engine(List.of("q"), List.of("x", "y"));
    e.onMarker("x", 9, 0);
    assertThat(captures).containsExactly(9L);
    assertThat(out.markers()).containsExactly(new MarkerSent("q", 9, 0));
    e.onData("x", 1, b("after-marker"));
    e.onData("y", 1, b("in-flight"));
    e.onMarker("y", 9, 1);
    LocalSnapshot piece = out.completed().get(0).cut();
    assertThat(piece.firstMarkerFrom()).isEqualTo("x");
    assertThat(piece.recorded("x")).isEmpty();
    assertThat(piece.recordings()).containsKey("x");
    assertThat(seqs(piece.recorded("y"))).containsExactly(1L);
    assertThat(piece.received()).containsEntry("x", 0L).containsEntry("y", 0L);
  }

  @Test
  void markerOnAChannelAlreadyClosedForThatSnapshotIsIgnored() {
    SnapshotEngine e = engine(List.of(), List.of("x", "y"));
    e.onMarker("x", 1, 0);
    e.onMarker("x", 1, 0);
    assertThat(e.ignoredMarkers()).isEqualTo(1);
    assertThat(out.completed()).isEmpty();
    assertThat(captures).containsExactly(1L);
    e.onMarker("y", 1, 0);
    assertThat(out.completed()).hasSize(1);
  }

  @Test
  void severalSnapshotsInFlightRecordIndependently() {
    SnapshotEngine e = engine(List.of("o"), List.of("x", "y"));
    e.onMarker("x", 1, 0); // snapshot 1 records y
    e.onData("y", 1, b("a"));
    e.onMarker("y", 2, 1); // snapshot 2 records x
    e.onData("y", 2, b("b"));
    e.onData("x", 1, b("c"));
    e.onMarker("y", 1, 2); // closes 1
    e.onMarker("x", 2, 1); // closes 2
    assertThat(out.markers()).containsExactly(new MarkerSent("o", 1, 0), new MarkerSent("o", 2, 0));
    List<CompletedLocalSnapshot> done = out.completed();
    assertThat(done).extracting(d -> d.cut().snapshotId()).containsExactly(1L, 2L);
    assertThat(seqs(done.get(0).cut().recorded("y"))).containsExactly(1L, 2L);
    assertThat(done.get(0).cut().recorded("x")).isEmpty();
    assertThat(done.get(1).cut().recorded("y")).isEmpty();
    assertThat(seqs(done.get(1).cut().recorded("x"))).containsExactly(1L);
    assertThat(done.get(1).cut().received()).containsEntry("y", 1L).containsEntry("x", 0L);
  }

  @Test
  void anInitiatorReachedFirstByAnotherInitiatorsMarkerTakesPartOnce() {
    SnapshotEngine e = engine(List.of("x"), List.of("x", "y"));
    e.onMarker("x", 3, 0);
    assertThat(e.tryStartSnapshot(3)).isFalse();
    assertThatThrownBy(() -> e.startSnapshot(3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already in flight");
    assertThat(captures).containsExactly(3L);
    assertThat(out.markers()).hasSize(1);
    e.onMarker("y", 3, 0);
    assertThat(out.completed()).hasSize(1);
    assertThat(out.completed().get(0).cut().firstMarkerFrom()).isEqualTo("x");
  }

  @Test
  void twoInitiatorsOfOneSnapshotEachCloseTheOthersChannel() {
    RecordingOutput outB = new RecordingOutput();
    SnapshotEngine a = engine(List.of("b"), List.of("b"));
    SnapshotEngine bEngine =
        new SnapshotEngine(
            "b",
            List.of("w"),
            List.of("w"),
            id -> CapturedState.of(new byte[0]),
            outB,
            EngineOptions.defaults());
    a.startSnapshot(4);
    bEngine.startSnapshot(4);
    bEngine.onMarker("w", 4, 0);
    a.onMarker("b", 4, 0);
    assertThat(out.completed())
        .singleElement()
        .satisfies(c -> assertThat(c.cut().initiator()).isTrue());
    assertThat(outB.completed())
        .singleElement()
        .satisfies(c -> assertThat(c.cut().initiator()).isTrue());
  }

  @Test
  void aCompletedSnapshotIdIsNeitherRestartedByALateMarkerNorStartedAgain() {
    SnapshotEngine e = engine(List.of("o"), List.of("x", "y"));
    e.startSnapshot(8);
    e.onMarker("x", 8, 0);
    e.onMarker("y", 8, 0);
    assertThat(out.completed()).hasSize(1);
    e.onMarker("x", 8, 0); // late duplicate
    assertThat(e.inFlight()).isEmpty();
    assertThat(e.ignoredMarkers()).isEqualTo(1);
    assertThat(captures).containsExactly(8L);
    assertThatThrownBy(() -> e.startSnapshot(8))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already completed");
    assertThat(e.tryStartSnapshot(8)).isFalse();
    assertThat(e.isKnown(8)).isTrue();
  }

  @Test
  void aWorkerWithoutIncomingChannelsCompletesRightAfterSendingItsMarkers() {
    SnapshotEngine e = engine(List.of("b", "a"), List.of());
    e.startSnapshot(-17); // any long is a valid id
    assertThat(out.events()).hasSize(3);
    assertThat(out.events().get(0)).isEqualTo(new MarkerSent("a", -17, 0));
    assertThat(out.events().get(1)).isEqualTo(new MarkerSent("b", -17, 0));
    assertThat(out.events().get(2)).isInstanceOf(Completed.class);
    assertThat(out.completed().get(0).cut().recordings()).isEmpty();
  }

  @Test
  void aWorkerWithoutOutgoingChannelsSendsNoMarkers() {
    SnapshotEngine e = engine(List.of(), List.of("x"));
    e.onMarker("x", 2, 0);
    assertThat(out.markers()).isEmpty();
    assertThat(out.completed())
        .singleElement()
        .satisfies(c -> assertThat(c.cut().sent()).isEmpty());
  }

  @Test
  void aWorkerWithNoChannelsAtAllCompletesAtOnce() {
    SnapshotEngine e = engine(List.of(), List.of());
    e.startSnapshot(Long.MAX_VALUE);
    assertThat(out.events()).singleElement().isInstanceOf(Completed.class);
    assertThat(out.completed().get(0).cut().snapshotId()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aMarkerWhoseSentCountDisagreesWithWhatArrivedIsAProtocolViolation() {
    SnapshotEngine e = engine(List.of(), List.of("x"));
    e.onData("x", 1, b("m"));
    e.onData("x", 2, b("m"));
    assertThatThrownBy(() -> e.onMarker("x", 1, 1))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("says 1")
        .hasMessageContaining("but 2 arrived")
        .hasMessageContaining("more arrived than were sent");
    assertThatThrownBy(() -> e.onMarker("x", 1, 3))
        .isInstanceOf(ProtocolViolationException.class)
        .hasMessageContaining("lost");
    assertThat(captures).isEmpty();
    assertThat(e.inFlight()).isEmpty();
    e.onMarker("x", 1, -1); // unknown count: not checked
    assertThat(out.completed()).hasSize(1);
  }

  @Test
  void pastTheRecordingLimitTheSnapshotFailsAndItsLaterMarkersAreIgnored() {
    SnapshotEngine e =
        engine(
            List.of(),
            List.of("x", "y"),
            EngineOptions.defaults().withMaxRecordedBytesPerSnapshot(10));
    e.onMarker("x", 1, 0); // 1 records y
    e.startSnapshot(2); // 2 records x and y
    e.onData("y", 1, new byte[5]);
    e.onData("x", 1, new byte[5]);
    assertThat(out.failures()).isEmpty(); // 1: 5 bytes, 2: 10 bytes (the limit itself is fine)
    e.onData("y", 2, new byte[6]); // 1: 11 bytes, 2: 16 bytes
    assertThat(out.failures()).extracting(Failed::snapshotId).containsExactly(1L, 2L);
    assertThat(out.failures().get(0).reason()).contains("more than 10 bytes");
    assertThat(out.of(Delivered.class)).hasSize(3); // the application still gets every message
    assertThat(e.inFlight()).isEmpty();
    e.onMarker("y", 1, 2);
    e.onMarker("x", 2, 1);
    assertThat(out.completed()).isEmpty();
    assertThat(e.ignoredMarkers()).isEqualTo(2);
  }

  @Test
  void theLimitIsPerSnapshotSoASmallerOneSurvives() {
    SnapshotEngine e =
        engine(
            List.of(),
            List.of("x", "y"),
            EngineOptions.defaults().withMaxRecordedBytesPerSnapshot(10));
    e.startSnapshot(1); // records x and y
    e.onData("x", 1, new byte[8]);
    e.onMarker("x", 1, 1);
    e.onMarker("x", 2, 1); // 2 records y only
    e.onData("y", 1, new byte[8]); // 1: 16 bytes -> fails; 2: 8 bytes
    e.onMarker("y", 2, 1);
    assertThat(out.failures()).extracting(Failed::snapshotId).containsExactly(1L);
    assertThat(out.completed()).extracting(c -> c.cut().snapshotId()).containsExactly(2L);
  }

  @Test
  void abortDropsRecordingsAndLaterMarkersEvenOfIdsNotSeenYet() {
    SnapshotEngine e = engine(List.of("o"), List.of("x", "y"));
    e.onMarker("x", 1, 0);
    e.abort(1);
    e.abort(2); // not seen yet
    e.abort(2); // twice is fine
    assertThat(e.inFlight()).isEmpty();
    e.onData("y", 1, b("m"));
    e.onMarker("y", 1, 1);
    e.onMarker("y", 2, 1);
    assertThat(out.completed()).isEmpty();
    assertThat(captures).containsExactly(1L);
    assertThat(out.failures()).isEmpty();
  }

  @Test
  void abortAllDropsEverySnapshotInFlight() {
    SnapshotEngine e = engine(List.of(), List.of("x", "y"));
    e.startSnapshot(1);
    e.onMarker("x", 2, 0);
    e.abortAll();
    assertThat(e.inFlight()).isEmpty();
    e.onMarker("y", 1, 0);
    e.onMarker("y", 2, 0);
    assertThat(out.completed()).isEmpty();
  }

  @Test
  void restoreResetsCountersAndDropsSnapshots() {
    SnapshotEngine e = engine(List.of("a", "b"), List.of("x"));
    e.send("a", b("m"));
    e.onData("x", 1, b("m"));
    e.startSnapshot(1);
    e.restore(Map.of("a", 10L), Map.of("x", 4L));
    assertThat(e.inFlight()).isEmpty();
    assertThat(e.sent("a")).isEqualTo(10);
    assertThat(e.sent("b")).isZero();
    assertThat(e.received("x")).isEqualTo(4);
    assertThat(e.send("a", b("m"))).isEqualTo(11);
    e.onData("x", 5, b("replayed"));
    assertThat(e.received("x")).isEqualTo(5);
    e.onMarker("x", 1, 5);
    assertThat(out.completed()).isEmpty();
  }

  @Test
  void restoreRejectsUndeclaredPeersAndNegativeCountsWithoutChangingAnything() {
    SnapshotEngine e = engine(List.of("a"), List.of("x"));
    e.send("a", b("m"));
    e.startSnapshot(1);
    assertThatThrownBy(() -> e.restore(Map.of("zz", 1L), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zz");
    assertThatThrownBy(() -> e.restore(Map.of(), Map.of("x", -1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(">= 0");
    assertThat(e.sent("a")).isEqualTo(1);
    assertThat(e.inFlight()).containsExactly(1L);
  }

  @Test
  void recentMemoryIsBoundedSoVeryOldIdsAreForgotten() {
    SnapshotEngine e =
        engine(List.of(), List.of(), EngineOptions.defaults().withRecentSnapshotMemory(2));
    e.startSnapshot(1);
    e.startSnapshot(2);
    assertThat(e.isKnown(1)).isTrue();
    e.startSnapshot(3);
    assertThat(e.isKnown(1)).isFalse();
    assertThat(e.isKnown(2)).isTrue();
    assertThat(e.isKnown(3)).isTrue();
  }

  /** An engine with one channel each way whose state capture is {@code capture}. */
  private SnapshotEngine capturing(StateCapture capture) {
    return new SnapshotEngine(
        "w", List.of("o"), List.of("x"), capture, out, EngineOptions.defaults());
  }

  @Test
  void aFailingStateCaptureFailsTheSnapshotWithoutSendingMarkers() {
    SnapshotEngine e =
        capturing(
            id -> {
              throw new IllegalStateException("disk on fire");
            });
    e.onMarker("x", 6, 0);
    assertThat(out.markers()).isEmpty();
    assertThat(out.failures())
        .singleElement()
        .satisfies(
            f -> assertThat(f.reason()).contains("state capture failed").contains("disk on fire"));
    assertThat(e.inFlight()).isEmpty();
    assertThat(e.isKnown(6)).isTrue();
  }

  /** An Error (an assertion, a stack overflow) fails the snapshot as an exception does. */
  @Test
  void aStateCaptureThatThrowsAnErrorFailsTheSnapshotToo() {
    SnapshotEngine e =
        capturing(
            id -> {
              throw new StackOverflowError("deep state");
            });
    e.onMarker("x", 6, 0);
    assertThat(out.markers()).isEmpty();
    assertThat(out.failures())
        .singleElement()
        .satisfies(f -> assertThat(f.reason()).contains("state capture failed"));
    assertThat(e.inFlight()).isEmpty();
  }

  @Test
  void anApplicationMaySendFromItsDeliveryHandler() {
    SnapshotEngine[] self = new SnapshotEngine[1];
    out.onDeliver(d -> self[0].send("o", d.payload()));
    self[0] = engine(List.of("o"), List.of("x"));
    SnapshotEngine e = self[0];
    e.onData("x", 1, b("ping"));
    e.onMarker("x", 1, 1);
    e.onData("x", 2, b("ping"));
    assertThat(e.sent("o")).isEqualTo(2);
    assertThat(out.markers()).containsExactly(new MarkerSent("o", 1, 1));
  }

  @Test
  void anyLongIsASnapshotId() {
    SnapshotEngine e = engine(List.of(), List.of("x"));
    e.startSnapshot(Long.MIN_VALUE);
    e.startSnapshot(0);
    assertThat(e.inFlight()).containsExactly(Long.MIN_VALUE, 0L);
  }

  /** Worker "w", with one outgoing channel (to q) and two incoming (from x and y). */
  private SnapshotEngine oneOutTwoIn(StateCapture capture, EngineOutput o) {
    return new SnapshotEngine(
        "w",
        List.of("q"),
        List.of("x", "y"),
        capture,
        o,
        EngineOptions.defaults().withNanoClock(clock::get));
  }

  /** Every callback but deliveries, as a line: "marker to q", "captured 9 state@9", "failed 13". */
  private static final class CallLog implements EngineOutput {
    final List<String> calls = new ArrayList<>();

    @Override
    public void sendMarker(String to, long snapshotId, long sentCount) {
      calls.add("marker to " + to);
    }

    @Override
    public void deliver(String from, long seq, byte[] payload) {}

    @Override
    public void captured(long snapshotId, CapturedState state) {
      calls.add("captured " + snapshotId + " " + new String(state.state(), UTF_8));
    }

    @Override
    public void completed(CompletedLocalSnapshot snapshot) {
      calls.add("completed " + snapshot.cut().snapshotId());
    }

    @Override
    public void failed(long snapshotId, String reason) {
      calls.add("failed " + snapshotId);
    }

    @Override
    public void dropped(long snapshotId) {
      calls.add("dropped " + snapshotId);
    }
  }
}
