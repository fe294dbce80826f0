package io.cutpoint.server.rollback;

import io.cutpoint.util.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One rollback to a snapshot, as pure logic: no I/O, time from an injected {@link Clock}. It is
 * told what happens (a worker halted, restored, joined, was lost; time passed) and answers with the
 * {@link Command}s to send. The caller persists the epoch before creating it and carries the
 * commands out.
 *
 * <p>Steps (DESIGN section 5): every worker of the snapshot is sent {@code halt(epoch)}; workers
 * without a live session are waited for (a joiner is welcomed halted and answers {@code halted} by
 * itself, and is sent {@code halt} again in case its welcome raced the start). When every worker
 * has halted, each is sent {@code restore(snapshot, epoch)}; when every worker has restored, each
 * is sent {@code resume(epoch)} and the run is {@link Phase#COMPLETED}. A worker lost on the way is
 * waited for again and, once it has halted again, restored again; the others stay halted meanwhile.
 * When the deadline passes before every worker restored, the run is {@link Phase#FAILED}. Answers
 * of another epoch or another snapshot are ignored: they belong to an earlier rollback.
 *
 * <p>Not thread-safe: the caller serializes calls.
 */
public final class RollbackRun {

  /** Where the run is. */
  public enum Phase {
    /** Waiting for every worker to halt (and for missing workers to rejoin). */
    HALTING,
    /** Every worker halted; waiting for every worker to restore. */
    RESTORING,
    /** Every worker restored and was sent {@code resume}. */
    COMPLETED,
    /** The deadline passed, or the run was given up. */
    FAILED
  }

  /** Where one worker is in this run. */
  public enum WorkerStep {
    /** No live session: waiting for it to join. */
    MISSING,
    /** Sent {@code halt}, no answer yet. */
    HALTING,
    /** Answered {@code halted}. */
    HALTED,
    /** Sent {@code restore}, no answer yet. */
    RESTORING,
    /** Answered {@code restored}. */
    RESTORED
  }

  /** What the caller must send. */
  public sealed interface Command {
    String workerId();
  }

  /** Send {@code halt(epoch)}. */
  public record Halt(String workerId) implements Command {}

  /** Send {@code restore(snapshot, epoch)}. */
  public record Restore(String workerId) implements Command {}

  /** Send {@code resume(epoch)}. */
  public record Resume(String workerId) implements Command {}

  private final long epoch;
  private final long snapshotId;
  private final Clock clock;
  private final Instant startedAt;
  private final Instant deadline;
  private final SortedMap<String, WorkerStep> workers = new TreeMap<>();
  private Phase phase = Phase.HALTING;
  private String failure;

  /**
   * @param epoch the new epoch (already persisted)
   * @param snapshotId the complete snapshot to restore
   * @param workers every worker of the snapshot
   * @param clock time source
   * @param deadline how long the whole run may take
   */
  public RollbackRun(
      long epoch, long snapshotId, Collection<String> workers, Clock clock, Duration deadline) {
    if (workers.isEmpty()) {
      throw new IllegalArgumentException("a rollback needs at least one worker");
    }
    this.epoch = epoch;
    this.snapshotId = snapshotId;
    this.clock = clock;
    this.startedAt = clock.instant();
    this.deadline = startedAt.plus(deadline);
    workers.forEach(w -> this.workers.put(w, WorkerStep.MISSING));
  }

  /** Starts the run: halts every worker in {@code live}; the others are waited for. */
  public List<Command> begin(Set<String> live) {
    List<Command> out = new ArrayList<>();
    for (String w : workers.keySet()) {
      if (live.contains(w)) {
        workers.put(w, WorkerStep.HALTING);
        out.add(new Halt(w));
      }
    }
    return out;
  }

  /** {@code workerId} answered {@code halted(epoch)}. */
  public List<Command> halted(String workerId, long answeredEpoch) {
    WorkerStep step = workers.get(workerId);
    if (finished() || step == null || answeredEpoch != epoch) {
      return List.of();
    }
    if (step != WorkerStep.MISSING && step != WorkerStep.HALTING) {
      return List.of(); // a duplicate answer (a joiner answers its welcome and our halt)
    }
    workers.put(workerId, WorkerStep.HALTED);
    if (phase == Phase.RESTORING) {
      workers.put(workerId, WorkerStep.RESTORING);
      return List.of(new Restore(workerId));
    }
    if (workers.values().stream().allMatch(s -> s == WorkerStep.HALTED)) {
      phase = Phase.RESTORING;
      List<Command> out = new ArrayList<>();
      for (String w : workers.keySet()) {
        workers.put(w, WorkerStep.RESTORING);
        out.add(new Restore(w));
      }
      return out;
    }
    return List.of();
  }

  /** {@code workerId} answered {@code restored(epoch, snapshot)}. */
  public List<Command> restored(String workerId, long answeredEpoch, long answeredSnapshot) {
    WorkerStep step = workers.get(workerId);
    if (finished()
        || step != WorkerStep.RESTORING
        || answeredEpoch != epoch
        || answeredSnapshot != snapshotId) {
      return List.of();
    }
    workers.put(workerId, WorkerStep.RESTORED);
    if (!workers.values().stream().allMatch(s -> s == WorkerStep.RESTORED)) {
      return List.of();
    }
    phase = Phase.COMPLETED;
    List<Command> out = new ArrayList<>();
    workers.keySet().forEach(w -> out.add(new Resume(w)));
    return out;
  }

  /**
   * {@code workerId} could not restore: the run fails, since it cannot complete with that worker
   * halted short of the snapshot's state. A stale answer (another epoch or snapshot, or a worker
   * not restoring) changes nothing.
   *
   * @return whether the run failed
   */
  public boolean restoreFailed(
      String workerId, long answeredEpoch, long answeredSnapshot, String reason) {
    if (finished()
        || workers.get(workerId) != WorkerStep.RESTORING
        || answeredEpoch != epoch
        || answeredSnapshot != snapshotId) {
      return false;
    }
    fail("worker " + workerId + " could not restore snapshot " + snapshotId + ": " + reason);
    return true;
  }

  /** {@code workerId} has a new live session: it is sent {@code halt} (again). */
  public List<Command> joined(String workerId) {
    if (finished() || !workers.containsKey(workerId)) {
      return List.of();
    }
    workers.put(workerId, WorkerStep.HALTING);
    return List.of(new Halt(workerId));
  }

  /** {@code workerId} lost its session: it is waited for again. */
  public void lost(String workerId) {
    if (!finished() && workers.containsKey(workerId)) {
      workers.put(workerId, WorkerStep.MISSING);
    }
  }

  /** Fails the run if its deadline has passed; true when it did. */
  public boolean checkDeadline() {
    if (finished() || clock.instant().isBefore(deadline)) {
      return false;
    }
    fail(
        "the deadline of "
            + Durations.format(Duration.between(startedAt, deadline))
            + " passed; "
            + waitingFor());
    return true;
  }

  /** Gives the run up (the coordinator closes, the store failed). */
  public void fail(String reason) {
    if (!finished()) {
      phase = Phase.FAILED;
      failure = reason;
    }
  }

  /** What the run still waits for, in words. */
  public String waitingFor() {
    SortedMap<WorkerStep, SortedSet<String>> by = new TreeMap<>();
    workers.forEach((w, s) -> by.computeIfAbsent(s, k -> new TreeSet<>()).add(w));
    List<String> parts = new ArrayList<>();
    SortedSet<String> missing = by.get(WorkerStep.MISSING);
    if (missing != null) {
      parts.add("workers not rejoined: " + missing);
    }
    SortedSet<String> halting = by.get(WorkerStep.HALTING);
    if (halting != null) {
      parts.add("not halted: " + halting);
    }
    SortedSet<String> restoring = by.get(WorkerStep.RESTORING);
    if (restoring != null) {
      parts.add("not restored: " + restoring);
    }
    SortedSet<String> halted = by.get(WorkerStep.HALTED);
    if (halted != null && phase == Phase.HALTING) {
      parts.add("halted: " + halted);
    }
    return parts.isEmpty() ? "nothing" : String.join("; ", parts);
  }

  /** The workers the run still waits for (to rejoin, halt or restore), sorted. */
  public SortedSet<String> waitingForWorkers() {
    SortedSet<String> out = new TreeSet<>();
    workers.forEach(
        (w, s) -> {
          if (s == WorkerStep.MISSING || s == WorkerStep.HALTING || s == WorkerStep.RESTORING) {
            out.add(w);
          }
        });
    return out;
  }

  public boolean finished() {
    return phase == Phase.COMPLETED || phase == Phase.FAILED;
  }

  public Phase phase() {
    return phase;
  }

  public long epoch() {
    return epoch;
  }

  public long snapshotId() {
    return snapshotId;
  }

  public Instant startedAt() {
    return startedAt;
  }

  public Instant deadline() {
    return deadline;
  }

  /** Time since the start, by the run's clock. */
  public Duration elapsed() {
    return Duration.between(startedAt, clock.instant());
  }

  /** Why the run failed; null unless {@link Phase#FAILED}. */
  public String failure() {
    return failure;
  }

  /** Every worker's step, by id. */
  public SortedMap<String, WorkerStep> workers() {
    return java.util.Collections.unmodifiableSortedMap(new TreeMap<>(workers));
  }

  public SortedSet<String> workerIds() {
    return java.util.Collections.unmodifiableSortedSet(new TreeSet<>(workers.keySet()));
  }
}
