package io.cutpoint.ops.crash;

import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.CutViolation;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import io.cutpoint.storage.RocksSnapshotStore;
import io.cutpoint.storage.SnapshotStore;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads every COMPLETE snapshot back from the coordinator's RocksDB store after the run and checks
 * it: {@link CutVerifier} finds no violation, balances plus recorded in-flight amounts equal the
 * total, and what the workers reported (pieces recorded, states restored) matches the stored state.
 */
final class StoredCuts {

  /** What the read-back found. */
  record Result(int complete, long inFlightMessages, List<String> violations) {}

  private StoredCuts() {}

  static Result check(Path dir, long total, CrashLedger ledger) {
    List<String> violations = new ArrayList<>();
    int complete = 0;
    long inFlight = 0;
    try (SnapshotStore store = RocksSnapshotStore.open(dir)) {
      for (SnapshotManifest m : store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))) {
        complete++;
        long id = m.getSnapshotId();
        store.verifyIntegrity(id);
        List<LocalSnapshot> pieces = new ArrayList<>();
        Set<String> workers = new TreeSet<>();
        Set<ChannelId> channels = new TreeSet<>();
        long money = 0;
        for (WorkerDecl d : m.getTopology().getWorkersList()) {
          String w = d.getWorkerId();
          workers.add(w);
          d.getOutgoingList().forEach(to -> channels.add(ChannelId.of(w, to)));
          LocalSnapshotMeta meta = store.workerMeta(id, w).orElseThrow();
          SortedMap<String, List<InTransitMessage>> recorded = new TreeMap<>();
          for (String from : d.getIncomingList()) {
            List<InTransitMessage> msgs = store.readChannel(id, ChannelId.of(from, w));
            recorded.put(from, msgs);
            inFlight += msgs.size();
            for (InTransitMessage r : msgs) {
              money += CrashAccount.amountOf(r.payload());
            }
          }
          String first = meta.getFirstMarkerFrom();
          pieces.add(
              new LocalSnapshot(
                  id,
                  w,
                  counters(meta.getSentList()),
                  counters(meta.getReceivedList()),
                  recorded,
                  first.isEmpty() ? null : first));
          byte[] state = state(store, id, w);
          money += CrashAccount.balanceOf(state);
          ledger
              .piece(id, w)
              .ifPresent(
                  p -> {
                    if (p.crc() != ReportingControl.crc(state)) {
                      violations.add(
                          "snapshot "
                              + id
                              + ", worker "
                              + w
                              + ": stored state differs from the one it recorded");
                    }
                  });
        }
        for (CutViolation v : CutVerifier.verify(Cut.of(id, workers, channels, pieces))) {
          violations.add("snapshot " + id + " (COMPLETE) is inconsistent: " + v);
        }
        if (money != total) {
          violations.add("snapshot " + id + " (COMPLETE) holds " + money + ", not " + total);
        }
      }
      for (CrashLedger.Restored r : ledger.restores()) {
        if (store.manifest(r.snapshot()).isEmpty()) {
          violations.add(
              r.worker() + " restored snapshot " + r.snapshot() + ", which is not stored");
        } else if (ReportingControl.crc(state(store, r.snapshot(), r.worker())) != r.crc()) {
          violations.add(
              r.worker()
                  + " restored snapshot "
                  + r.snapshot()
                  + " in epoch "
                  + r.epoch()
                  + " with a state that differs from the stored piece");
        }
      }
    }
    return new Result(complete, inFlight, violations);
  }

  private static byte[] state(SnapshotStore store, long id, String worker) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    store.readState(id, worker, out::writeBytes);
    return out.toByteArray();
  }

  private static SortedMap<String, Long> counters(List<ChannelCounter> list) {
    SortedMap<String, Long> out = new TreeMap<>();
    list.forEach(c -> out.put(c.getPeer(), c.getCount()));
    return out;
  }
}
