package io.cutpoint.playground.sim;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.CutViolation;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One simulated snapshot: the pieces the processes reported, and once all are in, the verifier's
 * verdict on the cut and the bank's conservation check (balances captured plus money recorded in
 * transit must equal the money in the system).
 */
public final class SnapshotRun {

  /** Where a snapshot is. */
  public enum Status {
    RECORDING,
    CONSISTENT,
    INCONSISTENT,
    FAILED,
    ABORTED
  }

  public final long id;
  public final List<String> initiators;
  public final long startedAt;
  private final Map<String, CompletedLocalSnapshot> pieces = new TreeMap<>();
  private Status status = Status.RECORDING;
  private long finishedAt = -1;
  private List<String> violations = List.of();
  private long moneyInCut;

  SnapshotRun(long id, List<String> initiators, long startedAt) {
    this.id = id;
    this.initiators = List.copyOf(initiators);
    this.startedAt = startedAt;
  }

  /** Adds a piece; when every worker has reported, verifies the cut and returns true. */
  boolean add(
      CompletedLocalSnapshot piece,
      Set<String> workers,
      Set<io.cutpoint.cut.ChannelId> channels,
      long money,
      long now) {
    if (status != Status.RECORDING) {
      return false;
    }
    pieces.put(piece.cut().workerId(), piece);
    if (pieces.size() < workers.size()) {
      return false;
    }
    List<LocalSnapshot> cuts = new ArrayList<>();
    for (CompletedLocalSnapshot p : pieces.values()) {
      cuts.add(p.cut());
      moneyInCut += Money.decode(p.state().state());
      for (List<InTransitMessage> rec : p.cut().recordings().values()) {
        for (InTransitMessage m : rec) {
          moneyInCut += Money.decode(m.payload());
        }
      }
    }
    List<String> found = new ArrayList<>();
    for (CutViolation v : CutVerifier.verify(Cut.of(id, workers, channels, cuts))) {
      found.add(v.toString());
    }
    if (moneyInCut != money) {
      found.add("bank: the cut holds " + moneyInCut + " but the system holds " + money);
    }
    violations = List.copyOf(found);
    status = found.isEmpty() ? Status.CONSISTENT : Status.INCONSISTENT;
    finishedAt = now;
    return true;
  }

  void fail(String reason, long now, Status why) {
    if (status == Status.RECORDING) {
      status = why;
      violations = List.of(reason);
      finishedAt = now;
    }
  }

  public Status status() {
    return status;
  }

  public long finishedAt() {
    return finishedAt;
  }

  /** The verifier's violations and the bank's, as sentences; empty for a consistent cut. */
  public List<String> violations() {
    return violations;
  }

  /** Money counted in the cut (captured balances plus recorded transfers). */
  public long moneyInCut() {
    return moneyInCut;
  }

  /** The pieces reported so far, by worker. */
  public Map<String, CompletedLocalSnapshot> pieces() {
    return pieces;
  }
}
