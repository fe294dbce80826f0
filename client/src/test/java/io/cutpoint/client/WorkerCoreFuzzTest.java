package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.api.v1.Marker;
import io.cutpoint.client.engine.EngineOptions;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The receiving side of a worker's channels fed arbitrary frames, streams, halts, resumes,
 * snapshots and the passing of time, as a client that is not the sender could send them. After
 * every step: the application saw each channel's messages contiguously, the engine counted exactly
 * what was delivered, parking stayed within its limits, and no refused stream heard from the worker
 * again. At the end the real sender reconnects and its next message must be delivered.
 *
 * <p>Runs its committed inputs in {@code mvn verify}; {@code -Pfuzz} fuzzes it (see README).
 */
class WorkerCoreFuzzTest {

  private static final List<String> PEERS = List.of("a", "c");
  private static final ParkingLimits LIMITS = new ParkingLimits(4, 600, Duration.ofSeconds(1));

  @FuzzTest(maxDuration = "5m")
  void arbitraryFramesNeverJamAChannelNorReachTheApplicationOutOfOrder(FuzzedDataProvider data) {
    new Run(data.consumeBoolean()).drive(data);
  }

  /**
   * One worker "b" with channels a->b, c->b and b->c, and what its application saw; with markers
   * ahead, the turns it asks for to deliver frames read ahead run when the fuzzer says.
   */
  private static final class Run {
    long now;
    final java.util.ArrayDeque<String> turns = new java.util.ArrayDeque<>();
    final java.util.ArrayDeque<String> ackTurns = new java.util.ArrayDeque<>();
    final Map<String, Long> lastSeq = new HashMap<>();
    final Map<String, RecordingAckObserver> live = new HashMap<>();
    final List<RecordingAckObserver> all = new ArrayList<>();
    final WorkerCore core;
    final WireEffects effects;

    Run(boolean markersAhead) {
      SortedSet<String> incoming = new TreeSet<>(PEERS);
      SortedSet<String> outgoing = new TreeSet<>(List.of("c"));
      for (String peer : incoming) {
        lastSeq.put(peer, 0L);
      }
      WorkerMetrics metrics = new WorkerMetrics(null);
      Map<String, ChannelSender> senders =
          Map.of(
              "c",
              new ChannelSender("b", "c", 0, ChannelOptions.defaults(), new OfflineHooks(metrics)));
      // No send here overdraws a channel: the gate never holds a request back.
      effects =
          new WireEffects(
              "b",
              senders,
              new ReadGate(Runnable::run, () -> null, java.time.Duration.ZERO),
              turns::add,
              (from, delay) -> ackTurns.add(from));
      core =
          new WorkerCore(
              "b",
              outgoing,
              incoming,
              new NoState(),
              (from, seq, payload) -> {
                long expected = lastSeq.get(from) + 1;
                if (seq != expected) {
                  throw new AssertionError(
                      "message "
                          + seq
                          + " from "
                          + from
                          + " reached the"
                          + " application where "
                          + expected
                          + " was due");
                }
                lastSeq.put(from, seq);
              },
              metrics,
              EngineOptions.defaults().withNanoClock(() -> now),
              8,
              markersAhead,
              LIMITS,
              0);
    }

    void drive(FuzzedDataProvider data) {
      for (int step = 0; step < 64 && data.remainingBytes() > 0; step++) {
        String peer = data.pickValue(PEERS);
        switch (data.consumeInt(0, 8)) {
          case 8 -> {
            for (int n = data.consumeInt(1, 3); n > 0 && !turns.isEmpty(); n--) {
              effects.apply(core.deliverNext(turns.poll()));
            }
            if (!ackTurns.isEmpty() && data.consumeBoolean()) {
              effects.apply(core.ackDue(ackTurns.poll()));
            }
          }
          case 0 -> attach(peer);
          case 1 -> {
            RecordingAckObserver s = live.get(peer);
            if (s != null) {
              effects.apply(core.detach(peer, streams.get(s)));
            }
          }
          case 2 -> {
            long epoch = core.epoch() + data.consumeInt(0, 2);
            core.markHalted(epoch);
            effects.apply(core.halt(epoch));
          }
          case 3 -> effects.apply(core.resume(core.epoch()));
          case 4 -> effects.apply(core.startSnapshot(data.consumeLong(1, 6)));
          case 5 -> {
            now += data.consumeLong(0, 2_000_000_000L);
            effects.apply(core.expireParked());
          }
          default -> frame(peer, data);
        }
        check();
      }
      theRealSenderIsHeard();
    }

    private final Map<RecordingAckObserver, InboundStream> streams = new HashMap<>();

    private RecordingAckObserver attach(String peer) {
      RecordingAckObserver s = new RecordingAckObserver();
      InboundStream stream = s.stream();
      streams.put(s, stream);
      all.add(s);
      live.put(peer, s);
      effects.apply(core.attach(peer, stream));
      return s;
    }

    private void frame(String peer, FuzzedDataProvider data) {
      RecordingAckObserver s = live.get(peer);
      if (s == null || data.consumeBoolean()) {
        s = attach(peer);
      }
      ChannelReceiver r = core.receiver(peer);
      long epoch =
          switch (data.consumeInt(0, 3)) {
            case 0 -> core.epoch();
            case 1 -> core.epoch() + 1;
            case 2 -> Math.max(0, core.epoch() - 1);
            default -> data.consumeLong();
          };
      Frame.Builder frame = Frame.newBuilder().setEpoch(epoch).setAckNow(data.consumeBoolean());
      int items = data.consumeInt(0, 4);
      for (int i = 0; i < items; i++) {
        long position = data.consumeBoolean() ? r.delivered() + 1 + i : data.consumeLong(0, 12);
        long received = core.engine().received(peer);
        Item.Builder item = Item.newBuilder().setPosition(position);
        switch (data.consumeInt(0, 2)) {
          case 0 ->
              item.setData(
                  DataMessage.newBuilder()
                      .setSeq(data.consumeBoolean() ? received + 1 + i : data.consumeLong())
                      .setPayload(ByteString.copyFrom(data.consumeBytes(data.consumeInt(0, 300)))));
          case 1 ->
              item.setMarker(
                  Marker.newBuilder()
                      .setSnapshotId(data.consumeLong(1, 6))
                      .setSentCount(data.consumeBoolean() ? received : data.consumeLong()));
          default -> {} // neither data nor a marker
        }
        frame.addItems(item);
      }
      effects.apply(core.onFrame(peer, streams.get(s), WireFrames.toDomain(frame.build())));
    }

    private void check() {
      for (String peer : PEERS) {
        ChannelReceiver r = core.receiver(peer);
        assertThat(core.engine().received(peer))
            .as("engine count of %s->b", peer)
            .isEqualTo(lastSeq.get(peer));
        assertThat(r.parkedFrames()).isLessThanOrEqualTo(LIMITS.maxFrames());
        assertThat(r.parkedBytes()).isLessThanOrEqualTo(LIMITS.maxBytes());
        if (r.hasParked()) {
          assertThat(r.stream()).as("parked frames belong to the live stream").isNotNull();
        }
      }
      for (RecordingAckObserver s : all) {
        assertThat(s.eventsAfterEnd).as("events after a stream ended").isZero();
      }
    }

    /** A new stream of the real sender: told where to resume, its next message is delivered. */
    private void runTurns() {
      while (!turns.isEmpty()) {
        effects.apply(core.deliverNext(turns.poll()));
      }
      while (!ackTurns.isEmpty()) {
        effects.apply(core.ackDue(ackTurns.poll()));
      }
    }

    private void theRealSenderIsHeard() {
      if (core.halted()) {
        effects.apply(core.resume(core.epoch()));
      }
      runTurns();
      for (String peer : PEERS) {
        ChannelReceiver r = core.receiver(peer);
        RecordingAckObserver s = attach(peer);
        long resumeAt = s.lastAckedPosition();
        assertThat(resumeAt).isEqualTo(r.delivered());
        long seq = core.engine().received(peer) + 1;
        effects.apply(
            core.onFrame(
                peer,
                streams.get(s),
                WireFrames.toDomain(
                    Frame.newBuilder()
                        .setEpoch(core.epoch())
                        .addItems(
                            Item.newBuilder()
                                .setPosition(resumeAt + 1)
                                .setData(DataMessage.newBuilder().setSeq(seq)))
                        .build())));
        runTurns();
        assertThat(s.end).as("the real sender's stream of %s->b", peer).isNull();
        assertThat(lastSeq.get(peer)).as("the real sender's message on %s->b", peer).isEqualTo(seq);
        assertThat(s.lastAckedPosition()).isEqualTo(resumeAt + 1);
      }
      check();
      for (RecordingAckObserver s : all) {
        if (s.end != null) {
          assertThat(s.end.getCode())
              .isIn(
                  Status.Code.OK,
                  Status.Code.ABORTED,
                  Status.Code.DATA_LOSS,
                  Status.Code.INVALID_ARGUMENT,
                  Status.Code.FAILED_PRECONDITION,
                  Status.Code.RESOURCE_EXHAUSTED,
                  Status.Code.DEADLINE_EXCEEDED);
        }
      }
    }
  }
}
