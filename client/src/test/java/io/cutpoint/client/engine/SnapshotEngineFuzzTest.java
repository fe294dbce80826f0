package io.cutpoint.client.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cutpoint.client.engine.RecordingOutput.Completed;
import io.cutpoint.client.engine.RecordingOutput.Delivered;
import io.cutpoint.client.engine.RecordingOutput.Event;
import io.cutpoint.client.engine.RecordingOutput.Failed;
import io.cutpoint.client.engine.RecordingOutput.MarkerSent;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The engine fed arbitrary event sequences: sends, data messages, markers and early copies of
 * markers (in and out of order, on declared and undeclared channels), snapshot starts, aborts,
 * failing state captures and restores. It may only refuse with its documented exceptions, and a
 * refusal changes nothing. Whatever it reports must be sound: messages delivered per channel in
 * sequence, markers carrying the sent count at the cut, one outcome per snapshot, and every
 * recorded channel state the contiguous run of messages after the cut.
 *
 * <p>Runs its committed inputs in {@code mvn verify}; {@code -Pfuzz} fuzzes it (see README).
 */
class SnapshotEngineFuzzTest {

  private static final List<String> OUT = List.of("x", "z");
  private static final List<String> IN = List.of("x", "y");
  private static final List<String> ANY = List.of("x", "y", "z", "nobody");

  @FuzzTest(maxDuration = "5m")
  void arbitraryEventSequencesKeepTheEngineSound(FuzzedDataProvider data) {
    RecordingOutput out = new RecordingOutput();
    boolean[] failCapture = {false};
    SnapshotEngine engine =
        new SnapshotEngine(
            "w",
            OUT,
            IN,
            id -> {
              if (failCapture[0]) {
                throw new IllegalStateException("capture of " + id + " failed");
              }
              return CapturedState.of(new byte[] {(byte) id});
            },
            out,
            EngineOptions.defaults()
                .withMaxRecordedBytesPerSnapshot(data.consumeInt(0, 64))
                .withRecentSnapshotMemory(16)
                .withNanoClock(() -> 0)); // remembers every id used here
    Model model = new Model();

    for (int step = 0; step < 128 && data.remainingBytes() > 0; step++) {
      failCapture[0] = data.consumeInt(0, 15) == 0;
      String peer = data.pickValue(ANY);
      State before = State.of(engine, out);
      try {
        switch (data.consumeInt(0, 8)) {
          case 0 -> model.sent(peer, engine.send(peer, new byte[data.consumeInt(0, 8)]));
          case 1 ->
              engine.onData(
                  peer,
                  data.consumeBoolean()
                      ? receivedOrZero(engine, peer) + 1
                      : data.consumeLong(-2, 40),
                  data.consumeBytes(data.consumeInt(0, 16)));
          case 2 ->
              engine.onMarker(
                  peer,
                  data.consumeLong(1, 12),
                  data.consumeBoolean() ? receivedOrZero(engine, peer) : data.consumeLong(-1, 40));
          case 7 -> {
            long next = receivedOrZero(engine, peer) + 1;
            List<InTransitMessage> atHand = new java.util.ArrayList<>();
            for (int i = data.consumeInt(0, 3); i > 0; i--) {
              atHand.add(
                  new InTransitMessage(
                      data.consumeBoolean() ? next++ : data.consumeLong(-1, 40),
                      new byte[data.consumeInt(0, 8)]));
            }
            engine.onEarlyMarker(
                peer,
                data.consumeLong(1, 12),
                data.consumeBoolean()
                    ? receivedOrZero(engine, peer) + data.consumeInt(0, 3)
                    : data.consumeLong(-1, 40),
                atHand);
            model.atHand(peer, atHand);
          }
          case 3 -> engine.startSnapshot(data.consumeLong(1, 12));
          case 4 -> engine.tryStartSnapshot(data.consumeLong(1, 12));
          case 5 -> engine.abort(data.consumeLong(1, 12));
          case 6 -> engine.abortAll();
          default -> {
            Map<String, Long> sent = new HashMap<>();
            Map<String, Long> received = new HashMap<>();
            sent.put(data.pickValue(ANY), data.consumeLong(-1, 20));
            received.put(data.pickValue(ANY), data.consumeLong(-1, 20));
            engine.restore(sent, received);
            model.restored(engine);
          }
        }
      } catch (ProtocolViolationException | IllegalArgumentException e) {
        assertThat(State.of(engine, out))
            .as("a refused call changes nothing: %s", e)
            .isEqualTo(before);
      } catch (IllegalStateException e) {
        assertThat(e.getMessage()).contains("snapshot"); // startSnapshot of a known id
        assertThat(State.of(engine, out)).isEqualTo(before);
      }
      model.check(engine, out);
    }
  }

  private static long receivedOrZero(SnapshotEngine engine, String peer) {
    return IN.contains(peer) ? engine.received(peer) : 0;
  }

  /** What can be observed of the engine: its counters, snapshots in flight, and its output. */
  private record State(
      Map<String, Long> sent, Map<String, Long> received, Set<Long> inFlight, int events) {
    static State of(SnapshotEngine e, RecordingOutput out) {
      Map<String, Long> sent = new HashMap<>();
      OUT.forEach(p -> sent.put(p, e.sent(p)));
      Map<String, Long> received = new HashMap<>();
      IN.forEach(p -> received.put(p, e.received(p)));
      return new State(sent, received, e.inFlight(), out.events().size());
    }
  }

  /** The checks, over the events the engine emitted since the last step. */
  private static final class Model {
    final Map<String, Long> delivered = new HashMap<>();
    final Map<String, Long> sent = new HashMap<>();

    /** The highest sequence number handed to an early marker as at hand, per channel. */
    final Map<String, Long> readAhead = new HashMap<>();

    final Set<Long> finished = new HashSet<>();
    int seen;

    Model() {
      IN.forEach(p -> delivered.put(p, 0L));
      OUT.forEach(p -> sent.put(p, 0L));
    }

    void sent(String peer, long seq) {
      assertThat(seq).as("sequence number to %s", peer).isEqualTo(sent.get(peer) + 1);
      sent.put(peer, seq);
    }

    /** Messages read ahead with an early marker the engine took: they arrived, undelivered. */
    void atHand(String peer, List<InTransitMessage> messages) {
      for (InTransitMessage m : messages) {
        readAhead.merge(peer, m.seq(), Math::max);
      }
    }

    void restored(SnapshotEngine engine) {
      readAhead.clear();
      IN.forEach(p -> delivered.put(p, engine.received(p)));
      OUT.forEach(p -> sent.put(p, engine.sent(p)));
    }

    void check(SnapshotEngine engine, RecordingOutput out) {
      List<Event> events = out.events();
      for (Event event : events.subList(seen, events.size())) {
        if (event instanceof Delivered d) {
          assertThat(d.seq())
              .as("delivery from %s", d.from())
              .isEqualTo(delivered.get(d.from()) + 1);
          delivered.put(d.from(), d.seq());
        } else if (event instanceof MarkerSent m) {
          assertThat(m.sentCount())
              .as("marker of %d to %s", m.snapshotId(), m.to())
              .isEqualTo(sent.get(m.to()));
        } else if (event instanceof Completed c) {
          assertThat(finished.add(c.snapshot().cut().snapshotId()))
              .as("one outcome per snapshot")
              .isTrue();
          checkCut(c.snapshot().cut());
        } else if (event instanceof Failed f) {
          assertThat(finished.add(f.snapshotId())).as("one outcome per snapshot").isTrue();
        }
      }
      seen = events.size();
      IN.forEach(p -> assertThat(engine.received(p)).isEqualTo(delivered.get(p)));
      OUT.forEach(p -> assertThat(engine.sent(p)).isEqualTo(sent.get(p)));
      for (long id : finished) {
        assertThat(engine.inFlight()).as("a finished snapshot is not in flight").doesNotContain(id);
      }
    }

    private void checkCut(LocalSnapshot cut) {
      assertThat(cut.sent().keySet()).isEqualTo(new TreeSet<>(OUT));
      assertThat(cut.received().keySet()).isEqualTo(new TreeSet<>(IN));
      for (String peer : IN) {
        List<InTransitMessage> recorded = cut.recorded(peer);
        if (peer.equals(cut.firstMarkerFrom())) {
          assertThat(recorded)
              .as("the channel whose marker recorded %s", cut.snapshotId())
              .isEmpty();
        }
        long next = cut.received().get(peer) + 1;
        for (InTransitMessage m : recorded) {
          assertThat(m.seq())
              .as("recorded state of %s in snapshot %d", peer, cut.snapshotId())
              .isEqualTo(next++);
        }
        assertThat(next - 1)
            .as("recorded up to what arrived (delivered or read ahead)")
            .isLessThanOrEqualTo(Math.max(delivered.get(peer), readAhead.getOrDefault(peer, 0L)));
      }
    }
  }
}
