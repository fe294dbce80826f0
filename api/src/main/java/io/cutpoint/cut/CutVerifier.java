package io.cutpoint.cut;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Checks a cut against the invariant of DESIGN section 2, for every channel {@code c = p -> q}:
 *
 * <ul>
 *   <li>both ends reported a piece for this snapshot, {@code p} with {@code sent_at_cut(c)} and
 *       {@code q} with {@code received_at_cut(c)};
 *   <li>{@code received_at_cut(c) <= sent_at_cut(c)}: nothing is received that was not sent (the
 *       consistency of the cut);
 *   <li>the recorded messages are exactly sequence numbers {@code received_at_cut+1 ..
 *       sent_at_cut}, contiguous and in order;
 *   <li>the channel whose marker made {@code q} record is recorded empty.
 * </ul>
 *
 * It also checks that pieces belong to the snapshot and to known workers, that counters are not
 * negative, and that no piece carries counters, recordings or a first-marker channel outside the
 * topology. It returns every violation it finds (empty when the cut is consistent), worker-level
 * ones first (by worker), then by channel; it never throws on a bad cut. Pure and thread-safe.
 */
public final class CutVerifier {

  /** Worker-level violations first (by worker), then channel ones (by channel); stable. */
  private static final Comparator<CutViolation> ORDER =
      Comparator.comparing((CutViolation v) -> v.channel() != null)
          .thenComparing(CutViolation::workerId, Comparator.nullsLast(Comparator.naturalOrder()))
          .thenComparing(CutViolation::channel, Comparator.nullsFirst(Comparator.naturalOrder()));

  private CutVerifier() {}

  /** All violations found in {@code cut}, sorted by channel; empty when it is consistent. */
  public static List<CutViolation> verify(Cut cut) {
    List<CutViolation> out = new ArrayList<>();
    checkPieces(cut, out);
    for (ChannelId c : cut.channels()) {
      checkChannel(cut, c, out);
    }
    out.sort(ORDER);
    return List.copyOf(out);
  }

  private static void checkPieces(Cut cut, List<CutViolation> out) {
    for (String worker : cut.workers()) {
      if (!cut.pieces().containsKey(worker)) {
        out.add(CutViolation.onWorker(worker, "no local snapshot reported"));
      }
    }
    for (Map.Entry<String, LocalSnapshot> e : cut.pieces().entrySet()) {
      LocalSnapshot piece = e.getValue();
      String w = e.getKey();
      if (!cut.workers().contains(w)) {
        out.add(CutViolation.onWorker(w, "reported a piece but is not part of the snapshot"));
      }
      if (!w.equals(piece.workerId())) {
        out.add(CutViolation.onWorker(w, "piece is labelled as worker " + piece.workerId()));
      }
      if (piece.snapshotId() != cut.snapshotId()) {
        out.add(
            CutViolation.onWorker(
                w,
                "piece belongs to snapshot " + piece.snapshotId() + ", not " + cut.snapshotId()));
      }
      for (String peer : piece.sent().keySet()) {
        if (!cut.channels().contains(ChannelId.of(w, peer))) {
          out.add(
              CutViolation.onChannel(
                  ChannelId.of(w, peer), "sent count recorded for a channel outside the topology"));
        }
      }
      for (String peer : piece.received().keySet()) {
        if (!cut.channels().contains(ChannelId.of(peer, w))) {
          out.add(
              CutViolation.onChannel(
                  ChannelId.of(peer, w),
                  "received count recorded for a channel outside the topology"));
        }
      }
      for (String peer : piece.recordings().keySet()) {
        if (!cut.channels().contains(ChannelId.of(peer, w))) {
          out.add(
              CutViolation.onChannel(
                  ChannelId.of(peer, w), "messages recorded on a channel outside the topology"));
        }
      }
      String first = piece.firstMarkerFrom();
      if (first != null && !cut.channels().contains(ChannelId.of(first, w))) {
        out.add(
            CutViolation.onChannel(
                ChannelId.of(first, w),
                "the first marker is said to come on a channel outside the topology"));
      }
    }
  }

  private static void checkChannel(Cut cut, ChannelId c, List<CutViolation> out) {
    LocalSnapshot sender = cut.pieces().get(c.from());
    LocalSnapshot receiver = cut.pieces().get(c.to());
    if (sender == null || receiver == null) {
      return; // already reported as a missing piece
    }
    Long sent = sender.sent().get(c.to());
    Long received = receiver.received().get(c.from());
    if (sent == null) {
      out.add(CutViolation.onChannel(c, c.from() + " recorded no sent count"));
    }
    if (received == null) {
      out.add(CutViolation.onChannel(c, c.to() + " recorded no received count"));
    }
    if (sent == null || received == null) {
      return;
    }
    if (sent < 0 || received < 0) {
      out.add(
          CutViolation.onChannel(
              c,
              "negative count (sent "
                  + sent
                  + ", received "
                  + received
                  + "): sequence numbers start at 1 and counts at 0"));
      return;
    }
    if (received > sent) {
      out.add(
          CutViolation.onChannel(
              c,
              "received "
                  + received
                  + " but only "
                  + sent
                  + " sent: the cut records receipts whose sends it does not record"));
      return;
    }
    List<InTransitMessage> recorded = receiver.recorded(c.from());
    if (c.from().equals(receiver.firstMarkerFrom()) && !recorded.isEmpty()) {
      out.add(
          CutViolation.onChannel(
              c,
              "the channel whose marker started the recording holds "
                  + recorded.size()
                  + " messages; it must be empty"));
    }
    long expected = sent - received;
    if (recorded.size() != expected) {
      out.add(
          CutViolation.onChannel(
              c,
              "recorded "
                  + recorded.size()
                  + " messages in transit, expected "
                  + expected
                  + " (seq "
                  + (received + 1)
                  + ".."
                  + sent
                  + ")"));
    }
    long next = received + 1;
    for (InTransitMessage m : recorded) {
      if (m.seq() != next) {
        out.add(
            CutViolation.onChannel(
                c,
                "recorded seq "
                    + m.seq()
                    + " where "
                    + next
                    + " was expected: messages must be contiguous and in order"));
        return;
      }
      next++;
    }
  }
}
