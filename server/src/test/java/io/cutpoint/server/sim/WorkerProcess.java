package io.cutpoint.server.sim;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.Welcome;
import io.cutpoint.client.SimulatedWorker;
import io.cutpoint.client.sim.BankApp;
import io.cutpoint.server.membership.Declaration;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;

/**
 * One process of a worker in the seeded simulator: the production worker core behind its simulated
 * transport ({@link SimulatedWorker}), the bank application, and the worker's end of its session,
 * which does what the client's {@code CommandHandler} does with each coordinator message: the
 * welcome (halt when a rollback holds the workers, move to the cluster's epoch, resume a worker it
 * had halted), start and abort a snapshot, halt, restore from the piece the store holds, resume.
 * When its session ends it joins again after a delay, {@code fresh} only before its first welcome.
 */
final class WorkerProcess {

  /** What the process needs from the simulation. */
  interface Host {
    /** Opens a new session to whichever coordinator runs now. */
    SimSession connect(WorkerProcess process);

    /** Runs {@code action} after a random delay. */
    void later(Runnable action);

    /** Reads {@code worker}'s piece of {@code snapshotId} from the store (the download). */
    Optional<StoredPieces.Stored> download(long snapshotId, String worker);

    /** {@code process} restored its piece in {@code epoch}. */
    void restored(WorkerProcess process, long epoch);

    void note(String line);

    void problem(String description);
  }

  private final String id;
  private final SimulatedWorker worker;
  private final BankApp app;
  private final Declaration decl;
  private final Host host;
  private SimSession session;
  private boolean fresh = true;
  private boolean halted;
  private boolean dead;
  private long replayRaces;
  private long endedByWelcome;

  WorkerProcess(
      String id,
      SimulatedWorker worker,
      BankApp app,
      SortedSet<String> outgoing,
      SortedSet<String> incoming,
      Host host) {
    this.id = id;
    this.worker = worker;
    this.app = app;
    this.decl = Declaration.of(id, "sim:" + id, outgoing, incoming);
    this.host = host;
  }

  String id() {
    return id;
  }

  SimulatedWorker worker() {
    return worker;
  }

  BankApp app() {
    return app;
  }

  /** The current session, or null while none stands. */
  SimSession session() {
    return session != null && session.up() ? session : null;
  }

  /** Channels on which new traffic waited at a resume while recorded messages were due first. */
  long replayRaces() {
    return replayRaces;
  }

  /** Recordings this process ended because a welcome said no coordinator would end them. */
  long recordingsEndedByWelcome() {
    return endedByWelcome;
  }

  /** Opens a session and joins. */
  void join() {
    if (dead) {
      return;
    }
    SimSession s = host.connect(this);
    session = s;
    boolean asFresh = fresh;
    s.toCoordinator(() -> s.coordinator().join(s, decl, asFresh));
  }

  /** The process dies: its session breaks, its core is gone. */
  void crash() {
    dead = true;
    worker.crash();
    if (session != null) {
      session.cut();
    }
  }

  /** The session ended (the coordinator closed it or died): join again later. */
  void sessionEnded(SimSession s) {
    if (s == session && !dead) {
      host.note(id + "'s session ended; it joins again");
      host.later(this::join);
    }
  }

  /** A message from the coordinator on {@code s}. */
  void handle(SimSession s, CoordinatorMessage m) {
    if (dead || s != session) {
      return;
    }
    switch (m.getBodyCase()) {
      case WELCOME -> welcome(s, m.getWelcome());
      case START_SNAPSHOT -> {
        long sid = m.getStartSnapshot().getSnapshotId();
        long epoch = m.getStartSnapshot().getEpoch();
        if (epoch == worker.epoch()) {
          host.note(id + " initiates S=" + sid);
          worker.startSnapshot(sid);
        } else {
          host.note(id + " refuses the start of S=" + sid + " of epoch " + epoch);
          String reason =
              "start for epoch " + epoch + " but the worker is in epoch " + worker.epoch();
          s.toCoordinator(() -> s.coordinator().snapshotFailed(s, sid, reason));
        }
      }
      case ABORT_SNAPSHOT -> worker.abortSnapshot(m.getAbortSnapshot().getSnapshotId());
      case HALT -> halt(s, m.getHalt().getEpoch());
      case RESTORE -> restore(s, m.getRestore().getSnapshotId(), m.getRestore().getEpoch());
      case RESUME -> resume(m.getResume().getEpoch());
      case PEERS, SNAPSHOT_GRANTED, BODY_NOT_SET -> {}
    }
  }

  private void welcome(SimSession s, Welcome w) {
    fresh = false;
    if (w.getNextSnapshotId() != 0) {
      int before = worker.recording().size();
      worker.endUnknownSnapshots(w.getNextSnapshotId(), Set.copyOf(w.getPendingSnapshotIdsList()));
      endedByWelcome += before - worker.recording().size();
    }
    long epoch = w.getEpoch();
    host.note(id + " welcomed in epoch " + epoch + (w.getHalted() ? ", halted" : ""));
    if (w.getHalted()) {
      halt(s, epoch);
      return;
    }
    if (epoch != worker.epoch()) {
      worker.halt(epoch);
      worker.resume(epoch);
      app.resumed();
    } else if (halted) {
      resume(epoch);
    }
    halted = false;
  }

  private void halt(SimSession s, long epoch) {
    host.note(id + " halts into epoch " + epoch);
    worker.halt(epoch);
    halted = true;
    s.toCoordinator(() -> s.coordinator().halted(s, epoch));
  }

  private void restore(SimSession s, long snapshotId, long epoch) {
    Optional<StoredPieces.Stored> piece = host.download(snapshotId, id);
    if (piece.isEmpty()) {
      host.problem(id + " cannot restore S=" + snapshotId + ": the store has no piece of it");
      return; // as a failed download: nothing restored, nothing answered
    }
    host.note(id + " restores S=" + snapshotId + " in epoch " + epoch);
    worker.restore(epoch, piece.get().cut(), piece.get().state());
    app.restored(piece.get().cut());
    host.restored(this, epoch);
    s.toCoordinator(() -> s.coordinator().restored(s, epoch, snapshotId));
  }

  private void resume(long epoch) {
    host.note(id + " resumes in epoch " + epoch);
    for (String from : worker.parkedFrom()) {
      if (app.replayPending(from)) {
        replayRaces++; // new traffic waits where recorded messages are to be replayed first
      }
    }
    worker.resume(epoch);
    halted = false;
    app.resumed();
  }
}
