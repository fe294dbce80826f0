package io.cutpoint.client.sim;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.Violation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * Stands in for the coordinator core in the seeded simulator, until the event-driven coordinator
 * state machine can be driven here instead: this is the one class that then switches to it. It
 * takes events (a trigger, a piece, a failed piece, a rollback, a worker lost or joined, halted and
 * restored answers) and sends commands through {@link Commands}; it does no I/O and keeps no clock.
 *
 * <p>What it does, as the production coordinator does: it starts snapshots (several may be pending
 * at once) at a covering set of initiators, collects each worker's piece of the current epoch,
 * checks the assembled cut with {@link CutVerifier} and commits it. A rollback goes to the newest
 * committed cut: a new epoch, every pending snapshot dropped, halt every live worker (a lost worker
 * is halted when it rejoins), once all have halted restore each from its piece (state, counters,
 * recorded messages), once all have restored resume them. A worker lost during a rollback is waited
 * for again and every worker is restored again; a worker lost otherwise starts a rollback (the
 * automatic policy). With {@link Variant#EARLY_COMMIT} it commits a snapshot once every piece but
 * one arrived, checking only the pieces it has.
 */
final class SimCoordinator {

  /** How commands reach the workers: through their simulated sessions. */
  interface Commands {
    void start(String worker, long snapshotId, long epoch);

    void halt(String worker, long epoch);

    /** {@code piece} is null when the committed cut has none for this worker (a broken commit). */
    void restore(String worker, long epoch, int attempt, CompletedLocalSnapshot piece);

    void resume(String worker, long epoch);
  }

  /** A committed cut: a complete piece for every worker (unless the commit was broken). */
  record Committed(long snapshotId, long epoch, SortedMap<String, CompletedLocalSnapshot> pieces) {}

  private enum Phase {
    NONE,
    HALTING,
    RESTORING
  }

  private record Pending(long epoch, SortedMap<String, CompletedLocalSnapshot> pieces) {}

  private final Topology topology;
  private final Commands commands;
  private final SplittableRandom random;
  private final int maxChosenInitiators;
  private final boolean earlyCommit;
  private final BiConsumer<Long, String> failedCut;
  private final SortedSet<String> live;
  private final SortedMap<Long, Pending> pending = new TreeMap<>();
  private final List<Committed> committed = new ArrayList<>();
  private long epoch;
  private long nextId = 1;
  private Phase phase = Phase.NONE;
  private Committed target;
  private int attempt;
  private final SortedSet<String> halted = new TreeSet<>();
  private final SortedSet<String> restored = new TreeSet<>();
  private int rollbacksFinished;
  private int rollbacksOverPending;
  private int maxPending;

  /**
   * @param failedCut told of a cut that failed {@link CutVerifier} (id, violations): kept FAILED
   */
  SimCoordinator(
      Topology topology,
      long epoch,
      Commands commands,
      SplittableRandom random,
      int maxChosenInitiators,
      boolean earlyCommit,
      BiConsumer<Long, String> failedCut) {
    this.topology = topology;
    this.epoch = epoch;
    this.commands = commands;
    this.random = random;
    this.maxChosenInitiators = maxChosenInitiators;
    this.earlyCommit = earlyCommit;
    this.failedCut = failedCut;
    this.live = new TreeSet<>(topology.workers());
  }

  long epoch() {
    return epoch;
  }

  boolean rollingBack() {
    return phase != Phase.NONE;
  }

  List<Committed> committed() {
    return Collections.unmodifiableList(committed);
  }

  /** Ids of the snapshots still pending and the workers whose piece is missing. */
  SortedMap<Long, SortedSet<String>> pending() {
    SortedMap<Long, SortedSet<String>> out = new TreeMap<>();
    pending.forEach(
        (id, p) -> {
          SortedSet<String> missing = new TreeSet<>(topology.workers());
          missing.removeAll(p.pieces().keySet());
          out.put(id, missing);
        });
    return out;
  }

  int rollbacksFinished() {
    return rollbacksFinished;
  }

  int rollbacksOverPending() {
    return rollbacksOverPending;
  }

  int maxPending() {
    return maxPending;
  }

  // ---- snapshots ---------------------------------------------------------------------------

  /** Starts a snapshot; refused (false) while a rollback runs. */
  boolean trigger() {
    if (phase != Phase.NONE) {
      return false;
    }
    long id = nextId++;
    pending.put(id, new Pending(epoch, new TreeMap<>()));
    maxPending = Math.max(maxPending, pending.size());
    List<String> all = List.copyOf(topology.workers());
    List<String> chosen = new ArrayList<>();
    int k = 1 + random.nextInt(maxChosenInitiators);
    for (int j = 0; j < k; j++) {
      chosen.add(all.get(random.nextInt(all.size())));
    }
    for (String initiator : topology.coveringInitiators(chosen, random)) {
      commands.start(initiator, id, epoch);
    }
    return true;
  }

  /** {@code worker}'s piece of a snapshot, completed in {@code pieceEpoch}. */
  void piece(String worker, long pieceEpoch, CompletedLocalSnapshot piece) {
    long id = piece.cut().snapshotId();
    Pending p = pending.get(id);
    if (p == null || p.epoch() != pieceEpoch) {
      return; // a snapshot that was committed, or dropped by a rollback
    }
    p.pieces().put(worker, piece);
    int needed =
        earlyCommit ? Math.max(1, topology.workers().size() - 1) : topology.workers().size();
    if (p.pieces().size() < needed) {
      return;
    }
    pending.remove(id);
    // every worker reported (unless the commit is broken: then only those that did are checked)
    Cut cut =
        Cut.of(
            id,
            p.pieces().keySet(),
            topology.channels(),
            p.pieces().values().stream().map(CompletedLocalSnapshot::cut).toList());
    List<Violation> violations = CutVerifier.verify(cut);
    if (violations.isEmpty()) {
      committed.add(new Committed(id, p.epoch(), p.pieces()));
    } else {
      failedCut.accept(id, violations.toString());
    }
  }

  // ---- rollback ----------------------------------------------------------------------------

  /** Rolls back to the newest committed cut; false when there is none. */
  boolean rollback() {
    if (committed.isEmpty()) {
      return false;
    }
    target = committed.get(committed.size() - 1);
    epoch++;
    attempt++;
    if (!pending.isEmpty()) {
      rollbacksOverPending++;
      pending.clear();
    }
    phase = Phase.HALTING;
    halted.clear();
    restored.clear();
    for (String w : live) {
      commands.halt(w, epoch);
    }
    return true;
  }

  void halted(String worker, long haltedEpoch) {
    if (phase != Phase.HALTING || haltedEpoch != epoch) {
      return;
    }
    halted.add(worker);
    if (halted.size() == topology.workers().size()) {
      phase = Phase.RESTORING;
      for (String w : topology.workers()) {
        commands.restore(w, epoch, attempt, target.pieces().get(w));
      }
    }
  }

  void restored(String worker, long restoredEpoch, int restoredAttempt) {
    if (phase != Phase.RESTORING || restoredEpoch != epoch || restoredAttempt != attempt) {
      return;
    }
    restored.add(worker);
    if (restored.size() == topology.workers().size()) {
      phase = Phase.NONE;
      rollbacksFinished++;
      for (String w : topology.workers()) {
        commands.resume(w, epoch);
      }
    }
  }

  /** {@code worker}'s session is lost (its process died). */
  void lost(String worker) {
    live.remove(worker);
    if (phase == Phase.NONE) {
      rollback(); // the automatic policy; the caller only loses workers once a cut is committed
      return;
    }
    // wait for it again; whoever restored will be restored again
    attempt++;
    phase = Phase.HALTING;
    halted.remove(worker);
    restored.clear();
  }

  /** {@code worker} joined again (with a fresh state): a rollback is running, it is halted. */
  void joined(String worker) {
    live.add(worker);
    if (phase != Phase.NONE) {
      commands.halt(worker, epoch);
    } else {
      rollback();
    }
  }
}
