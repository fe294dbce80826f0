package io.cutpoint.server;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.cutpoint.api.v1.EventType;
import io.cutpoint.api.v1.PeerAddress;
import io.cutpoint.api.v1.PeerUpdate;
import io.cutpoint.server.events.EventHub;
import io.cutpoint.server.grpc.LiveSession;
import io.cutpoint.server.grpc.SessionRegistry;
import io.cutpoint.server.lifecycle.Scheduler;
import io.cutpoint.server.lifecycle.SnapshotLifecycle;
import io.cutpoint.server.lifecycle.StoreExecutor;
import io.cutpoint.server.membership.Declaration;
import io.cutpoint.server.membership.Membership;
import io.cutpoint.server.membership.WorkerRemoval;
import io.cutpoint.server.metrics.CoordinatorMetrics;
import io.cutpoint.storage.SnapshotStore;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The parts of a running coordinator, built in dependency order, and the membership operations that
 * tie them together (a worker joins, a worker is lost). Handed to the gRPC services.
 *
 * <p>Threads: membership, lifecycle, rollback and schedule belong to the coordinator loop ({@link
 * #loop()}, the {@code cutpoint-coordinator} thread); gRPC handlers and timers post events to it.
 * The operations here run on the loop and check that they do. Store writes run on the store
 * executor ({@link #storeIo()}, {@code cutpoint-store}). No lock.
 */
public final class CoordinatorContext {

  private static final Logger log = LoggerFactory.getLogger(CoordinatorContext.class);
  private static final String OWNER = "CoordinatorContext";

  /** The parts; every one is built before the context. */
  record Parts(
      CoordinatorConfig config,
      Clock clock,
      Scheduler loop,
      SnapshotStore store,
      StoreExecutor storeIo,
      Membership membership,
      SessionRegistry sessions,
      EventHub events,
      CoordinatorMetrics metrics,
      java.util.concurrent.Executor transfers,
      SnapshotLifecycle lifecycle,
      RollbackService rollback,
      SnapshotSchedule schedule) {}

  private final CoordinatorConfig config;
  private final Clock clock;
  private final Scheduler loop;
  private final SnapshotStore store;
  private final StoreExecutor storeIo;
  private final Membership membership;
  private final SessionRegistry sessions;
  private final EventHub events;
  private final CoordinatorMetrics metrics;
  private final java.util.concurrent.Executor transfers;
  private final SnapshotLifecycle lifecycle;
  private final RollbackService rollback;
  private final SnapshotSchedule schedule;

  CoordinatorContext(Parts p) {
    this.config = p.config();
    this.clock = p.clock();
    this.loop = p.loop();
    this.store = p.store();
    this.storeIo = p.storeIo();
    this.membership = p.membership();
    this.sessions = p.sessions();
    this.events = p.events();
    this.metrics = p.metrics();
    this.transfers = p.transfers();
    this.lifecycle = p.lifecycle();
    this.rollback = p.rollback();
    this.schedule = p.schedule();
  }

  public CoordinatorConfig config() {
    return config;
  }

  public Clock clock() {
    return clock;
  }

  /** The coordinator loop: post events here ({@code execute}, {@code call}). */
  public Scheduler loop() {
    return loop;
  }

  public SnapshotStore store() {
    return store;
  }

  /** The cluster's epoch; any thread, never waits for the store's writes. */
  public long epoch() {
    long e = rollback.epoch();
    return e >= 0 ? e : store.epoch();
  }

  /** The store executor ({@code cutpoint-store}). */
  public StoreExecutor storeIo() {
    return storeIo;
  }

  public Membership membership() {
    return membership;
  }

  public SessionRegistry sessions() {
    return sessions;
  }

  public EventHub events() {
    return events;
  }

  public CoordinatorMetrics metrics() {
    return metrics;
  }

  public SnapshotLifecycle lifecycle() {
    return lifecycle;
  }

  public RollbackService rollback() {
    return rollback;
  }

  public SnapshotSchedule schedule() {
    return schedule;
  }

  /** Where downloads run: they wait for the receiver, so never on a transport thread. */
  public java.util.concurrent.Executor transfers() {
    return transfers;
  }

  /** The outcome of a join: the registered session, or the refusal. */
  public record Joined(Membership.JoinOutcome outcome, LiveSession session) {}

  /**
   * Admits a worker and registers its session. Messages sent to the session are held until the
   * caller sends the welcome ({@link LiveSession#welcome}), so that no command overtakes it.
   */
  public Joined join(Declaration decl, StreamObserver<CoordinatorMessage> out) {
    loop.checkInLoop(OWNER);
    Membership.JoinOutcome outcome = membership.join(decl, clock.millis());
    LiveSession session = null;
    if (outcome instanceof Membership.Accepted a) {
      session = sessions.register(decl.workerId(), a.token(), out);
    }
    return new Joined(outcome, session);
  }

  /**
   * After a welcome: tells peers the new address, aborts snapshots if channels changed, reports,
   * and tells the rollback service ({@code fresh}: the worker's state is its initial one).
   */
  public void joined(Declaration decl, Membership.Accepted accepted, boolean fresh) {
    loop.checkInLoop(OWNER);
    PeerAddress address =
        PeerAddress.newBuilder()
            .setWorkerId(decl.workerId())
            .setChannelAddress(decl.channelAddress())
            .build();
    for (String peer : accepted.peerUpdates()) {
      sessions.send(
          peer,
          CoordinatorMessage.newBuilder()
              .setPeers(PeerUpdate.newBuilder().addPeers(address))
              .build());
    }
    if (accepted.channelsChanged()) {
      lifecycle.topologyChanged(decl.workerId());
    }
    log.info(
        "worker {} joined from {} (out {}, in {}){}",
        decl.workerId(),
        decl.channelAddress(),
        brief(decl.outgoing()),
        brief(decl.incoming()),
        fresh ? " with a fresh state" : "");
    events.publish(
        EventType.EVENT_TYPE_WORKER_JOINED,
        0,
        decl.workerId(),
        "joined from " + decl.channelAddress(),
        0);
    rollback.onWorkerJoined(decl.workerId());
    if (fresh) {
      rollback.onFreshWorkerJoined(decl.workerId());
    }
    schedule.workerJoined(decl.workerId(), fresh);
  }

  /**
   * Ends the session {@code token} of {@code workerId}: marks the worker lost, closes the stream
   * with {@code status}, aborts the snapshots covering it. Does nothing if that session already
   * ended.
   */
  public void lost(String workerId, long token, Status status) {
    loop.checkInLoop(OWNER);
    boolean wasLive = membership.lost(workerId, token);
    sessions.remove(workerId, token).ifPresent(s -> s.close(status));
    if (!wasLive) {
      return;
    }
    log.warn("worker {} lost: {}", workerId, status.getDescription());
    events.publish(EventType.EVENT_TYPE_WORKER_LOST, 0, workerId, status.getDescription(), 0);
    lifecycle.workerLost(workerId);
    rollback.onWorkerLost(workerId);
  }

  /**
   * Marks lost every worker whose heartbeats stopped; with {@code forget-lost-after}, forgets the
   * workers lost for that long (unless a rollback needs them).
   */
  public void checkHeartbeats() {
    loop.checkInLoop(OWNER);
    long timeout = config.heartbeatTimeout().toMillis();
    membership
        .expired(clock.millis(), timeout)
        .forEach(
            (id, token) -> {
              if (sessions.get(id).filter(s -> s.token() == token && !s.welcomed()).isPresent()) {
                return; // its welcome waits (for ids from the store): it cannot heartbeat yet
              }
              lost(
                  id,
                  token,
                  Status.UNAVAILABLE.withDescription(
                      "no heartbeat for more than " + timeout + " ms"));
            });
    if (!config.forgetLostAfter().isZero()) {
      for (String id :
          membership.lostLongerThan(clock.millis(), config.forgetLostAfter().toMillis())) {
        removeWorker(
            id, "lost for longer than forget-lost-after (" + config.forgetLostAfter() + ")");
      }
    }
  }

  /**
   * Forgets the lost worker {@code workerId}, unless a rollback needs it: it leaves the topology,
   * the worker counts and the cluster view; if it joins again, it is a new worker.
   *
   * @param why who asked, for the log and the event
   */
  public WorkerRemoval removeWorker(String workerId, String why) {
    loop.checkInLoop(OWNER);
    java.util.Optional<String> needed = rollback.needs(workerId);
    if (needed.isPresent()) {
      return new WorkerRemoval(
          WorkerRemoval.Outcome.NEEDED, "worker " + workerId + " is not removed: " + needed.get());
    }
    Membership.Removal removal = membership.remove(workerId);
    return switch (removal) {
      case UNKNOWN -> new WorkerRemoval(WorkerRemoval.Outcome.UNKNOWN, "no worker " + workerId);
      case LIVE ->
          new WorkerRemoval(
              WorkerRemoval.Outcome.LIVE,
              "worker "
                  + workerId
                  + " has a live session; only a lost worker is removed (stop it first)");
      case REMOVED -> {
        log.info("worker {} removed ({})", workerId, why);
        events.publish(
            EventType.EVENT_TYPE_WORKER_REMOVED, 0, workerId, "removed (" + why + ")", 0);
        yield new WorkerRemoval(WorkerRemoval.Outcome.REMOVED, "worker " + workerId + " removed");
      }
    };
  }

  /** A peer list for a log line: a worker may declare thousands of channels. */
  static String brief(java.util.Collection<String> peers) {
    int shown = 8;
    if (peers.size() <= shown) {
      return peers.toString();
    }
    return peers.stream().limit(shown).collect(java.util.stream.Collectors.joining(", ", "[", ""))
        + ", ... ("
        + peers.size()
        + " in all)]";
  }
}
