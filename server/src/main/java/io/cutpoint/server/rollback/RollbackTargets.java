package io.cutpoint.server.rollback;

import io.cutpoint.api.v1.LocalCopyHeld;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.server.membership.Declaration;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.HeldState;
import io.cutpoint.storage.NoSuchSnapshotException;
import io.cutpoint.storage.SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Chooses and checks the snapshot a rollback restores. A snapshot qualifies when it is COMPLETE,
 * covers every worker the coordinator knows with the same channels (a worker restores only its own
 * piece of its own channels), and every stored piece passes its checksum ({@link
 * SnapshotStore#verifyIntegrity}), checked before any worker is halted; a state that a worker
 * restores from its own copy is checked by that worker instead. Runs on the store executor, never
 * on the coordinator loop.
 */
final class RollbackTargets {

  /** A snapshot that failed its checksums, and why. */
  record Corrupt(long snapshotId, String reason) {}

  /** The outcome of an automatic choice: the target (if any) and the newer snapshots skipped. */
  record Choice(Optional<SnapshotManifest> target, List<Corrupt> corrupt, String reasonIfNone) {}

  private static final Set<SnapshotStatus> ANY_STATUS =
      java.util.EnumSet.of(
          SnapshotStatus.SNAPSHOT_STATUS_PENDING,
          SnapshotStatus.SNAPSHOT_STATUS_COMPLETE,
          SnapshotStatus.SNAPSHOT_STATUS_ABORTED,
          SnapshotStatus.SNAPSHOT_STATUS_FAILED);

  private final SnapshotStore store;

  RollbackTargets(SnapshotStore store) {
    this.store = store;
  }

  /**
   * Checks an operator's target.
   *
   * <p>Runs on the store executor (it reads the store and verifies checksums).
   *
   * @throws RollbackRefused BAD_TARGET_ID (id 0), NO_SUCH_SNAPSHOT, NOT_NOW (not complete, or the
   *     workers changed since), TARGET_DAMAGED (a piece fails its checksum)
   */
  SnapshotManifest operatorTarget(long snapshotId, Membership.View cluster) {
    if (snapshotId <= 0) {
      throw new RollbackRefused(
          RollbackRefused.Kind.BAD_TARGET_ID,
          "snapshot_id must be a positive snapshot id, got " + Long.toUnsignedString(snapshotId));
    }
    SnapshotManifest m =
        store
            .manifest(snapshotId)
            .orElseThrow(
                () ->
                    new RollbackRefused(
                        RollbackRefused.Kind.NO_SUCH_SNAPSHOT, "no snapshot " + snapshotId));
    if (m.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_COMPLETE) {
      throw new RollbackRefused(
          RollbackRefused.Kind.NOT_NOW,
          "snapshot "
              + snapshotId
              + " is "
              + status(m)
              + (m.getReason().isEmpty() ? "" : " (" + m.getReason() + ")")
              + "; only a COMPLETE snapshot can be restored");
    }
    Optional<String> mismatch = mismatch(m, cluster).or(() -> uncovered(m, cluster));
    if (mismatch.isPresent()) {
      throw new RollbackRefused(
          RollbackRefused.Kind.NOT_NOW,
          "snapshot " + snapshotId + " does not fit the cluster: " + mismatch.get());
    }
    Optional<String> corrupt;
    try {
      corrupt = corruption(snapshotId, cluster);
    } catch (NoSuchSnapshotException e) {
      throw new RollbackRefused(
          RollbackRefused.Kind.NO_SUCH_SNAPSHOT,
          "no snapshot " + snapshotId + " (deleted while it was checked)");
    }
    if (corrupt.isPresent()) {
      throw new RollbackRefused(
          RollbackRefused.Kind.TARGET_DAMAGED,
          "snapshot "
              + snapshotId
              + " fails its checksums and will not be restored: "
              + corrupt.get()
              + "; roll back to an older snapshot instead");
    }
    return m;
  }

  /**
   * The newest complete snapshot that fits the cluster and verifies; corrupt newer ones are listed
   * (the caller reports the fallback). {@code preferred}, when positive, is tried first (a rollback
   * resumed after a restart, or retried, keeps its target if it still verifies), and only older
   * ones after it: a fallback goes back in time, never to the state the rollback was leaving.
   */
  Choice automaticTarget(Membership.View cluster, long preferred) {
    List<Corrupt> corrupt = new ArrayList<>();
    List<SnapshotManifest> candidates = new ArrayList<>();
    if (preferred > 0) {
      store
          .manifest(preferred)
          .filter(m -> m.getStatus() == SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
          .ifPresent(candidates::add);
    }
    for (SnapshotManifest m : store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))) {
      if (preferred <= 0 || m.getSnapshotId() < preferred) {
        candidates.add(m);
      }
    }
    int unfit = 0;
    for (SnapshotManifest m : candidates) {
      if (mismatch(m, cluster).or(() -> uncovered(m, cluster)).isPresent()) {
        unfit++;
        continue;
      }
      Optional<String> bad;
      try {
        bad = corruption(m.getSnapshotId(), cluster);
      } catch (NoSuchSnapshotException e) {
        continue; // deleted since the candidates were listed (retention)
      }
      if (bad.isPresent()) {
        corrupt.add(new Corrupt(m.getSnapshotId(), bad.get()));
        continue;
      }
      return new Choice(Optional.of(m), corrupt, null);
    }
    String why =
        candidates.isEmpty()
            ? "there is no complete snapshot"
            : "no complete snapshot qualifies ("
                + corrupt.size()
                + " fail their checksums, "
                + unfit
                + " do not fit the current workers)";
    return new Choice(Optional.empty(), corrupt, why);
  }

  /** The newest COMPLETE snapshot with a piece of {@code workerId}, if any. */
  Optional<Long> newestHolding(String workerId) {
    long newest = 0;
    for (SnapshotManifest m : store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE))) {
      if (m.getSnapshotId() > newest
          && m.getTopology().getWorkersList().stream()
              .anyMatch(d -> d.getWorkerId().equals(workerId))) {
        newest = m.getSnapshotId();
      }
    }
    return newest == 0 ? Optional.empty() : Optional.of(newest);
  }

  /**
   * Why restoring {@code m} would leave a worker out of step, if it would. A worker outside the
   * snapshot keeps its state and enters the new epoch with the others; that is right only for a
   * worker without channels, since the items in flight on a channel are dropped with the old epoch
   * and only a restore of both ends puts them back. So every worker with a channel must have a
   * piece in it: the known workers, the workers of every snapshot the store keeps, whatever its
   * status (after a restart the coordinator knows only those that rejoined so far; a worker that
   * left for good stops counting once the snapshots that name it are deleted), and every peer that
   * one of them declares.
   */
  Optional<String> uncovered(SnapshotManifest m, Membership.View cluster) {
    java.util.Set<String> inSnapshot = new java.util.TreeSet<>();
    java.util.SortedSet<String> withChannels = new java.util.TreeSet<>();
    List<WorkerDecl> decls = new ArrayList<>(m.getTopology().getWorkersList());
    for (SnapshotManifest c : store.list(ANY_STATUS)) {
      decls.addAll(c.getTopology().getWorkersList());
    }
    cluster.members().values().forEach(member -> decls.add(member.decl().toProto()));
    m.getTopology().getWorkersList().forEach(d -> inSnapshot.add(d.getWorkerId()));
    for (WorkerDecl d : decls) {
      if (d.getOutgoingCount() + d.getIncomingCount() > 0) {
        withChannels.add(d.getWorkerId());
        withChannels.addAll(d.getOutgoingList());
        withChannels.addAll(d.getIncomingList());
      }
    }
    withChannels.removeAll(inSnapshot);
    if (withChannels.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "workers "
            + withChannels
            + " have channels but no piece in it; they would enter the new epoch with their"
            + " channels out of step");
  }

  /**
   * Why the snapshot fails its checksums, if it does ({@link NoSuchSnapshotException} if it was
   * deleted meanwhile). The state of a live worker that reports it keeps this snapshot's state on
   * its own disk is not read (when the store's piece names the same state): that worker restores
   * from its copy and checks it against the piece itself.
   */
  private Optional<String> corruption(long snapshotId, Membership.View cluster) {
    try {
      store.verifyIntegrity(snapshotId, heldLocally(snapshotId, cluster));
      return Optional.empty();
    } catch (CorruptionException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** The live workers' local copies of {@code snapshotId}'s states, as their heartbeats said. */
  static Map<String, HeldState> heldLocally(long snapshotId, Membership.View cluster) {
    Map<String, HeldState> held = new TreeMap<>();
    for (Membership.Member m : cluster.members().values()) {
      LocalCopyHeld copy = m.localCopy();
      if (m.live() && copy.getSnapshotId() == snapshotId) {
        held.put(m.decl().workerId(), new HeldState(copy.getStateBytes(), copy.getStateCrc32C()));
      }
    }
    return held;
  }

  /** Why the snapshot cannot restore the known workers, if it cannot. */
  static Optional<String> mismatch(SnapshotManifest m, Membership.View cluster) {
    List<String> problems = new ArrayList<>();
    java.util.Map<String, WorkerDecl> inSnapshot = new java.util.TreeMap<>();
    m.getTopology().getWorkersList().forEach(d -> inSnapshot.put(d.getWorkerId(), d));
    for (Membership.Member member : cluster.members().values()) {
      Declaration known = member.decl();
      WorkerDecl taken = inSnapshot.get(known.workerId());
      if (taken == null) {
        problems.add("worker " + known.workerId() + " is not in it");
      } else if (!known.sameChannels(Declaration.fromProto(taken))) {
        problems.add("the channels of worker " + known.workerId() + " changed since");
      }
    }
    return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
  }

  private static String status(SnapshotManifest m) {
    return m.getStatus().name().replace("SNAPSHOT_STATUS_", "");
  }
}
