package io.cutpoint.server.sim;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.client.sim.BankAccount;
import io.cutpoint.client.sim.SimResult.ProblemKind;
import io.cutpoint.client.sim.Topology;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutViolation;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.storage.SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks every cut the store holds as COMPLETE, read back piece by piece from the store: a piece of
 * every worker its manifest covers, {@code CutVerifier} over those workers and the channels between
 * them, and, when it covers every worker, the bank's money (balances plus recorded transfers). A
 * snapshot started before every worker joined covers those that had.
 */
final class StoredCuts {

  /** Where the problems go. */
  @FunctionalInterface
  interface Problems {
    void add(ProblemKind kind, Long snapshotId, String message);
  }

  private final SnapshotStore store;
  private final Topology topology;
  private final long initialBalance;
  private long recordedMessages;

  StoredCuts(SnapshotStore store, Topology topology, long initialBalance) {
    this.store = store;
    this.topology = topology;
    this.initialBalance = initialBalance;
  }

  /** Messages recorded in flight over every committed cut (after {@link #check}). */
  long recordedMessages() {
    return recordedMessages;
  }

  /** Checks the committed cuts; returns each one's content written out, by snapshot id. */
  SortedMap<Long, String> check(Problems problems) {
    SortedMap<Long, String> contents = new TreeMap<>();
    long total = initialBalance * topology.workers().size();
    List<SnapshotManifest> complete =
        new ArrayList<>(store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)));
    complete.sort((a, b) -> Long.compare(a.getSnapshotId(), b.getSnapshotId()));
    for (SnapshotManifest m : complete) {
      long id = m.getSnapshotId();
      // the workers the coordinator knew when it started the snapshot (those that had joined)
      SortedSet<String> workers = new TreeSet<>();
      m.getTopology().getWorkersList().forEach(d -> workers.add(d.getWorkerId()));
      SortedSet<ChannelId> channels = new TreeSet<>();
      for (ChannelId c : topology.channels()) {
        if (workers.contains(c.from()) && workers.contains(c.to())) {
          channels.add(c);
        }
      }
      SortedSet<String> listed = new TreeSet<>();
      m.getPiecesList().forEach(p -> listed.add(p.getWorkerId()));
      for (String w : workers) {
        if (!listed.contains(w)) {
          problems.add(ProblemKind.CUT_VIOLATION, id, "committed without a piece of worker " + w);
        }
      }
      List<LocalSnapshot> pieces = new ArrayList<>();
      StringBuilder content = new StringBuilder();
      long money = 0;
      for (String w : workers) {
        SortedSet<String> incoming = new TreeSet<>(topology.incoming(w));
        incoming.retainAll(workers);
        Optional<StoredPieces.Stored> piece = StoredPieces.read(store, id, w, incoming);
        if (piece.isEmpty()) {
          continue; // CutVerifier reports the missing piece
        }
        LocalSnapshot cut = piece.get().cut();
        pieces.add(cut);
        long balance = BankAccount.decode(piece.get().state());
        money += balance;
        for (List<InTransitMessage> channel : cut.recordings().values()) {
          for (InTransitMessage r : channel) {
            money += BankAccount.amountOf(r.payload());
          }
        }
        recordedMessages += cut.inFlightMessages();
        content
            .append(w)
            .append(" balance=")
            .append(balance)
            .append(" sent=")
            .append(cut.sent())
            .append(" received=")
            .append(cut.received())
            .append(" recorded=")
            .append(cut.inFlightMessages())
            .append('\n');
      }
      contents.put(id, content.toString());
      for (CutViolation v :
          io.cutpoint.cut.CutVerifier.verify(Cut.of(id, workers, channels, pieces))) {
        problems.add(ProblemKind.CUT_VIOLATION, id, "committed: " + v);
      }
      if (workers.size() != topology.workers().size()) {
        continue; // some workers had not joined yet: their money is not in the cut
      }
      if (money != total) {
        problems.add(
            ProblemKind.NOT_CONSERVED,
            id,
            "committed: balances + money in flight = " + money + ", expected " + total);
      }
    }
    return contents;
  }
}
