package io.cutpoint.cut;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * Random consistent cuts pass; every kind of damage a faulty engine or transport could do to one is
 * caught. Seeded: a failure prints the seed.
 */
class CutVerifierMutationTest {

  private static final int CUTS = 2_000;

  /** Builds a consistent cut over a random topology with random counts. */
  static Cut randomConsistentCut(SplittableRandom r) {
    int n = 1 + r.nextInt(5);
    SortedSet<String> workers = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      workers.add("w" + i);
    }
    SortedSet<ChannelId> channels = new TreeSet<>();
    for (String a : workers) {
      for (String b : workers) {
        if (!a.equals(b) && r.nextInt(100) < 60) {
          channels.add(ChannelId.of(a, b));
        }
      }
    }
    Map<String, SortedMap<String, Long>> sent = new HashMap<>();
    Map<String, SortedMap<String, Long>> received = new HashMap<>();
    Map<String, SortedMap<String, List<InTransitMessage>>> recorded = new HashMap<>();
    Map<String, String> first = new HashMap<>();
    for (String w : workers) {
      sent.put(w, new TreeMap<>());
      received.put(w, new TreeMap<>());
      recorded.put(w, new TreeMap<>());
      List<ChannelId> in = channels.stream().filter(c -> c.to().equals(w)).toList();
      if (!in.isEmpty() && r.nextBoolean()) {
        first.put(w, in.get(r.nextInt(in.size())).from());
      }
    }
    for (ChannelId c : channels) {
      long rcv = r.nextInt(20);
      boolean isFirst = c.from().equals(first.get(c.to()));
      long snt = isFirst ? rcv : rcv + r.nextInt(5);
      sent.get(c.from()).put(c.to(), snt);
      received.get(c.to()).put(c.from(), rcv);
      List<InTransitMessage> msgs = new ArrayList<>();
      for (long s = rcv + 1; s <= snt; s++) {
        msgs.add(new InTransitMessage(s, new byte[] {(byte) s}));
      }
      recorded.get(c.to()).put(c.from(), msgs);
    }
    List<LocalSnapshot> pieces = new ArrayList<>();
    for (String w : workers) {
      pieces.add(
          new LocalSnapshot(5, w, sent.get(w), received.get(w), recorded.get(w), first.get(w)));
    }
    return Cut.of(5, workers, channels, pieces);
  }

  /**
   * A damaged cut and where the damage is: a channel, or a worker (for a piece dropped or taken
   * from another snapshot). The verifier must name that channel or worker.
   */
  record Damaged(Cut cut, ChannelId channel, String worker) {
    boolean namedBy(CutViolation v) {
      return channel != null ? channel.equals(v.channel()) : worker.equals(v.workerId());
    }
  }

  /** A changed piece and the channel whose entry was changed. */
  record Changed(LocalSnapshot piece, ChannelId channel) {}

  /** A way to damage a cut; returns null when it does not apply to this cut. */
  enum Damage {
    DROP_A_PIECE(
        (c, r) -> {
          if (c.pieces().isEmpty()) {
            return null;
          }
          List<LocalSnapshot> kept = new ArrayList<>(c.pieces().values());
          LocalSnapshot dropped = kept.remove(r.nextInt(kept.size()));
          return new Damaged(
              Cut.of(c.snapshotId(), c.workers(), c.channels(), kept), null, dropped.workerId());
        }),
    PIECE_OF_ANOTHER_SNAPSHOT(
        (c, r) ->
            replacePiece(
                c,
                r,
                p ->
                    new Changed(
                        new LocalSnapshot(
                            p.snapshotId() + 1,
                            p.workerId(),
                            p.sent(),
                            p.received(),
                            p.recordings(),
                            p.firstMarkerFrom()),
                        null))),
    LOSE_A_RECORDED_MESSAGE(
        (c, r) ->
            onRecordedChannel(
                c,
                r,
                true,
                (msgs, rr) -> {
                  List<InTransitMessage> m = new ArrayList<>(msgs);
                  m.remove(rr.nextInt(m.size()));
                  return m;
                })),
    DUPLICATE_A_RECORDED_MESSAGE(
        (c, r) ->
            onRecordedChannel(
                c,
                r,
                true,
                (msgs, rr) -> {
                  List<InTransitMessage> m = new ArrayList<>(msgs);
                  m.add(rr.nextInt(m.size() + 1), msgs.get(rr.nextInt(msgs.size())));
                  return m;
                })),
    SWAP_TWO_RECORDED_MESSAGES(
        (c, r) ->
            onRecordedChannel(
                c,
                r,
                false,
                (msgs, rr) -> {
                  if (msgs.size() < 2) {
                    return null;
                  }
                  List<InTransitMessage> m = new ArrayList<>(msgs);
                  int i = rr.nextInt(m.size() - 1);
                  java.util.Collections.swap(m, i, i + 1);
                  return m;
                })),
    RECORD_A_MESSAGE_ALREADY_RECEIVED(
        (c, r) ->
            onRecordedChannel(
                c,
                r,
                false,
                (msgs, rr) -> {
                  List<InTransitMessage> m = new ArrayList<>(msgs);
                  long seq = msgs.isEmpty() ? 0 : msgs.get(0).seq() - 1;
                  if (seq < 1) {
                    return null;
                  }
                  m.add(0, new InTransitMessage(seq, new byte[0]));
                  return m;
                })),
    SENDER_COUNTS_ONE_MORE(
        (c, r) ->
            replacePiece(
                c,
                r,
                p -> {
                  if (p.sent().isEmpty()) {
                    return null;
                  }
                  SortedMap<String, Long> s = new TreeMap<>(p.sent());
                  String peer = new ArrayList<>(s.keySet()).get(r.nextInt(s.size()));
                  s.merge(peer, 1L, Long::sum);
                  return new Changed(
                      new LocalSnapshot(
                          p.snapshotId(),
                          p.workerId(),
                          s,
                          p.received(),
                          p.recordings(),
                          p.firstMarkerFrom()),
                      ChannelId.of(p.workerId(), peer));
                })),
    RECEIVER_COUNTS_ONE_MORE(
        (c, r) ->
            replacePiece(
                c,
                r,
                p -> {
                  if (p.received().isEmpty()) {
                    return null;
                  }
                  SortedMap<String, Long> s = new TreeMap<>(p.received());
                  String peer = new ArrayList<>(s.keySet()).get(r.nextInt(s.size()));
                  s.merge(peer, 1L, Long::sum);
                  return new Changed(
                      new LocalSnapshot(
                          p.snapshotId(),
                          p.workerId(),
                          p.sent(),
                          s,
                          p.recordings(),
                          p.firstMarkerFrom()),
                      ChannelId.of(peer, p.workerId()));
                })),
    FORGET_A_COUNT(
        (c, r) ->
            replacePiece(
                c,
                r,
                p -> {
                  if (p.sent().isEmpty()) {
                    return null;
                  }
                  SortedMap<String, Long> s = new TreeMap<>(p.sent());
                  String peer = new ArrayList<>(s.keySet()).get(r.nextInt(s.size()));
                  s.remove(peer);
                  return new Changed(
                      new LocalSnapshot(
                          p.snapshotId(),
                          p.workerId(),
                          s,
                          p.received(),
                          p.recordings(),
                          p.firstMarkerFrom()),
                      ChannelId.of(p.workerId(), peer));
                })),
    FORGET_A_RECEIVED_COUNT(
        (c, r) ->
            replacePiece(
                c,
                r,
                p -> {
                  if (p.received().isEmpty()) {
                    return null;
                  }
                  SortedMap<String, Long> s = new TreeMap<>(p.received());
                  String peer = new ArrayList<>(s.keySet()).get(r.nextInt(s.size()));
                  s.remove(peer);
                  return new Changed(
                      new LocalSnapshot(
                          p.snapshotId(),
                          p.workerId(),
                          p.sent(),
                          s,
                          p.recordings(),
                          p.firstMarkerFrom()),
                      ChannelId.of(peer, p.workerId()));
                })),
    /**
     * A message recorded on the channel whose marker started the recording, with the sender's count
     * raised to match: every count agrees, only the first-marker rule can catch it.
     */
    MESSAGE_ON_THE_FIRST_MARKER_CHANNEL(
        (c, r) -> {
          List<LocalSnapshot> candidates =
              c.pieces().values().stream()
                  .filter(
                      p ->
                          p.firstMarkerFrom() != null
                              && c.pieces().containsKey(p.firstMarkerFrom()))
                  .toList();
          if (candidates.isEmpty()) {
            return null;
          }
          LocalSnapshot to = candidates.get(r.nextInt(candidates.size()));
          LocalSnapshot from = c.pieces().get(to.firstMarkerFrom());
          ChannelId ch = ChannelId.of(from.workerId(), to.workerId());
          long seq = to.received().get(from.workerId()) + 1;
          SortedMap<String, Long> sent = new TreeMap<>(from.sent());
          sent.put(to.workerId(), seq);
          SortedMap<String, List<InTransitMessage>> rec = new TreeMap<>(to.recordings());
          rec.put(from.workerId(), List.of(new InTransitMessage(seq, new byte[] {1})));
          SortedMap<String, LocalSnapshot> pieces = new TreeMap<>(c.pieces());
          pieces.put(
              from.workerId(),
              new LocalSnapshot(
                  from.snapshotId(),
                  from.workerId(),
                  sent,
                  from.received(),
                  from.recordings(),
                  from.firstMarkerFrom()));
          pieces.put(
              to.workerId(),
              new LocalSnapshot(
                  to.snapshotId(),
                  to.workerId(),
                  to.sent(),
                  to.received(),
                  rec,
                  to.firstMarkerFrom()));
          return new Damaged(new Cut(c.snapshotId(), c.workers(), c.channels(), pieces), ch, null);
        });

    final BiFunction<Cut, SplittableRandom, Damaged> apply;

    Damage(BiFunction<Cut, SplittableRandom, Damaged> apply) {
      this.apply = apply;
    }
  }

  private static Damaged replacePiece(
      Cut c, SplittableRandom r, java.util.function.Function<LocalSnapshot, Changed> change) {
    if (c.pieces().isEmpty()) {
      return null;
    }
    List<LocalSnapshot> pieces = new ArrayList<>(c.pieces().values());
    int i = r.nextInt(pieces.size());
    Changed changed = change.apply(pieces.get(i));
    if (changed == null) {
      return null;
    }
    pieces.set(i, changed.piece());
    return new Damaged(
        new Cut(c.snapshotId(), c.workers(), c.channels(), byWorker(pieces)),
        changed.channel(),
        changed.piece().workerId());
  }

  private static SortedMap<String, LocalSnapshot> byWorker(List<LocalSnapshot> pieces) {
    SortedMap<String, LocalSnapshot> m = new TreeMap<>();
    pieces.forEach(p -> m.put(p.workerId(), p));
    return m;
  }

  private static Damaged onRecordedChannel(
      Cut c,
      SplittableRandom r,
      boolean needsMessages,
      BiFunction<List<InTransitMessage>, SplittableRandom, List<InTransitMessage>> change) {
    List<ChannelId> candidates =
        c.channels().stream().filter(ch -> !needsMessages || !c.inTransit(ch).isEmpty()).toList();
    if (candidates.isEmpty()) {
      return null;
    }
    ChannelId ch = candidates.get(r.nextInt(candidates.size()));
    List<InTransitMessage> changed = change.apply(c.inTransit(ch), r);
    if (changed == null) {
      return null;
    }
    LocalSnapshot p = c.pieces().get(ch.to());
    SortedMap<String, List<InTransitMessage>> rec = new TreeMap<>(p.recordings());
    rec.put(ch.from(), changed);
    List<LocalSnapshot> pieces = new ArrayList<>(c.pieces().values());
    pieces.replaceAll(
        x ->
            x == p
                ? new LocalSnapshot(
                    p.snapshotId(), p.workerId(), p.sent(), p.received(), rec, p.firstMarkerFrom())
                : x);
    return new Damaged(
        new Cut(c.snapshotId(), c.workers(), c.channels(), byWorker(pieces)), ch, null);
  }

  @Test
  void randomConsistentCutsPassAndEveryDamagedOneIsCaught() {
    Map<Damage, Integer> applied = new java.util.EnumMap<>(Damage.class);
    for (long seed = 0; seed < CUTS; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      Cut cut = randomConsistentCut(r);
      assertThat(CutVerifier.verify(cut)).as("consistent cut, seed %d", seed).isEmpty();
      for (Damage d : Damage.values()) {
        Damaged damaged = d.apply.apply(cut, new SplittableRandom(seed * 31 + d.ordinal()));
        if (damaged == null) {
          continue;
        }
        applied.merge(d, 1, Integer::sum);
        assertThat(CutVerifier.verify(damaged.cut()))
            .as(
                "%s, seed %d: a violation naming %s",
                d,
                seed,
                damaged.channel() != null ? damaged.channel() : "worker " + damaged.worker())
            .anyMatch(damaged::namedBy);
      }
    }
    for (Damage d : Damage.values()) {
      assertThat(applied.getOrDefault(d, 0)).as("times %s applied", d).isGreaterThan(100);
    }
  }
}
