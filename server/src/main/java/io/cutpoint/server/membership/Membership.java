package io.cutpoint.server.membership;

import io.cutpoint.api.v1.LocalCopyHeld;
import io.cutpoint.api.v1.WorkerState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The table of workers the coordinator knows: their declarations, their state (running, lost,
 * halted, restored) and their live session. Workers are remembered after they are lost, so that the
 * topology stays whole while they reconnect, until they are {@linkplain #remove removed}. Pure (no
 * I/O, time passed in) and confined to one thread, the coordinator loop: no lock. After each change
 * it publishes an immutable {@link View}; {@link #view()}, {@link #isLive}, {@link #token} and
 * {@link #count} read that and may be called on any thread.
 */
public final class Membership {

  private final SortedMap<String, Member> members = new TreeMap<>();
  private final java.util.concurrent.atomic.AtomicIntegerArray counts =
      new java.util.concurrent.atomic.AtomicIntegerArray(WorkerState.values().length);
  private long nextToken = 1;
  private final int maxWorkers;

  /** A table that keeps at most {@code maxWorkers} workers, live and lost ones alike. */
  public Membership(int maxWorkers) {
    if (maxWorkers < 1) {
      throw new IllegalArgumentException("maxWorkers must be >= 1, got " + maxWorkers);
    }
    this.maxWorkers = maxWorkers;
  }

  /** A table with no practical limit on its size (tests). */
  public Membership() {
    this(Integer.MAX_VALUE);
  }

  /**
   * One known worker. {@code sessionToken} identifies its live session (0 when lost); {@code
   * localCopy} is what its last heartbeat of that session said it keeps on its own disk (the
   * default instance, snapshot 0, when nothing).
   */
  public record Member(
      Declaration decl,
      WorkerState state,
      long lastHeartbeatMs,
      long sessionToken,
      LocalCopyHeld localCopy) {
    public boolean live() {
      return state != WorkerState.WORKER_STATE_LOST;
    }

    Member with(WorkerState next, long token) {
      return new Member(decl, next, lastHeartbeatMs, token, localCopy);
    }
  }

  /** Why a join was refused. */
  public enum Refusal {
    /** A live session for that worker id exists. */
    ALREADY_EXISTS,
    /** The declared channels contradict those of live workers. */
    CONTRADICTS_TOPOLOGY,
    /** The table is full: a new id would pass the limit on workers. */
    TOO_MANY_WORKERS
  }

  /** The outcome of {@link #join}. */
  public sealed interface JoinOutcome permits Accepted, Refused {}

  /**
   * A join was accepted.
   *
   * @param token the session token (pass it back on heartbeats and when the session ends)
   * @param peerAddresses channel addresses of the joining worker's known peers
   * @param peerUpdates for every live peer whose view of the joining worker's address changed, its
   *     id (the caller sends it the new address)
   * @param channelsChanged the worker was known with different channels (pending snapshots that
   *     cover it must be aborted)
   */
  public record Accepted(
      long token,
      SortedMap<String, String> peerAddresses,
      List<String> peerUpdates,
      boolean channelsChanged)
      implements JoinOutcome {}

  /** A join was refused, with the reason in words. */
  public record Refused(Refusal refusal, String message) implements JoinOutcome {}

  /** An immutable view of the table. */
  public record View(ClusterTopology topology, SortedMap<String, Member> members) {
    public boolean allLive() {
      return members.values().stream().allMatch(Member::live);
    }

    public List<String> lost() {
      return members.values().stream()
          .filter(m -> !m.live())
          .map(m -> m.decl().workerId())
          .toList();
    }
  }

  private volatile View published =
      new View(ClusterTopology.of(List.of()), java.util.Collections.emptySortedMap());

  /**
   * Puts {@code m} in the table, counts it and publishes the view readers see. {@code topology} is
   * the topology after the change: a change of state keeps the published one, so that the rollback
   * of n workers, which changes each one's state three times, does not build it 3n times.
   */
  private void put(String id, Member m, ClusterTopology topology) {
    Member previous = members.put(id, m);
    if (previous != null) {
      counts.decrementAndGet(previous.state().getNumber());
    }
    counts.incrementAndGet(m.state().getNumber());
    publish(topology);
  }

  private void publish(ClusterTopology topology) {
    published =
        new View(topology, java.util.Collections.unmodifiableSortedMap(new TreeMap<>(members)));
  }

  /** Workers in {@code state}; reads no lock (for gauges). */
  public int count(WorkerState state) {
    return state == WorkerState.UNRECOGNIZED ? 0 : counts.get(state.getNumber());
  }

  /** Admits {@code decl} at {@code nowMs}, or says why not. */
  public JoinOutcome join(Declaration decl, long nowMs) {
    String id = decl.workerId();
    Member previous = members.get(id);
    if (previous != null && previous.live()) {
      return new Refused(Refusal.ALREADY_EXISTS, "worker " + id + " already has a live session");
    }
    if (previous == null && members.size() >= maxWorkers) {
      return new Refused(
          Refusal.TOO_MANY_WORKERS,
          "the coordinator already knows "
              + members.size()
              + " workers, its limit (max-workers); worker "
              + id
              + " is not admitted");
    }
    List<String> problems =
        ClusterTopology.contradictions(
            decl,
            () -> members.values().stream().filter(Member::live).map(Member::decl).iterator());
    if (!problems.isEmpty()) {
      return new Refused(Refusal.CONTRADICTS_TOPOLOGY, String.join("; ", problems));
    }
    long token = nextToken++;
    put(
        id,
        new Member(
            decl,
            WorkerState.WORKER_STATE_RUNNING,
            nowMs,
            token,
            LocalCopyHeld.getDefaultInstance()),
        published.topology().with(decl));
    SortedMap<String, String> addresses = new TreeMap<>();
    List<String> updates = new ArrayList<>();
    for (String peer : decl.peers()) {
      Member m = members.get(peer);
      if (m == null) {
        continue;
      }
      addresses.put(peer, m.decl().channelAddress());
      boolean addressChanged =
          previous == null || !previous.decl().channelAddress().equals(decl.channelAddress());
      if (m.live() && addressChanged && m.decl().peers().contains(id)) {
        updates.add(peer);
      }
    }
    boolean changed = previous != null && !previous.decl().sameChannels(decl);
    return new Accepted(token, addresses, updates, changed);
  }

  /**
   * Records a heartbeat of the session {@code token}, with the local copy it reports; false when
   * that session is not live.
   */
  public boolean heartbeat(String id, long token, long nowMs, LocalCopyHeld localCopy) {
    Member m = members.get(id);
    if (m == null || !m.live() || m.sessionToken() != token) {
      return false;
    }
    members.put(id, new Member(m.decl(), m.state(), nowMs, token, localCopy));
    publish(published.topology()); // the topology and the counts are unchanged
    return true;
  }

  /**
   * The session {@code token} of {@code id} was welcomed: its heartbeats are due from now on (a
   * worker learns their interval from the welcome, which may have waited).
   */
  public void welcomed(String id, long token, long nowMs) {
    Member m = members.get(id);
    if (m != null && m.live() && m.sessionToken() == token) {
      heartbeat(id, token, nowMs, m.localCopy());
    }
  }

  /** Marks the session {@code token} of {@code id} lost; false when it was not the live session. */
  public boolean lost(String id, long token) {
    Member m = members.get(id);
    if (m == null || !m.live() || m.sessionToken() != token) {
      return false;
    }
    put(id, m.with(WorkerState.WORKER_STATE_LOST, 0), published.topology());
    return true;
  }

  /** Sets the state of a live worker (rollback: halted, restored, running); false if not live. */
  public boolean setState(String id, WorkerState state) {
    Member m = members.get(id);
    if (m == null || !m.live() || state == WorkerState.WORKER_STATE_LOST) {
      return false;
    }
    put(id, m.with(state, m.sessionToken()), published.topology());
    return true;
  }

  /** Live sessions whose last heartbeat is older than {@code timeoutMs}: id to session token. */
  public Map<String, Long> expired(long nowMs, long timeoutMs) {
    Map<String, Long> out = new TreeMap<>();
    for (Member m : members.values()) {
      if (m.live() && nowMs - m.lastHeartbeatMs() > timeoutMs) {
        out.put(m.decl().workerId(), m.sessionToken());
      }
    }
    return out;
  }

  /** The outcome of {@link #remove}. */
  public enum Removal {
    /** Forgotten. */
    REMOVED,
    /** No such worker. */
    UNKNOWN,
    /** It has a live session: only a lost worker is forgotten. */
    LIVE
  }

  /** Forgets the lost worker {@code id}: it leaves the topology and the counts. */
  public Removal remove(String id) {
    Member m = members.get(id);
    if (m == null) {
      return Removal.UNKNOWN;
    }
    if (m.live()) {
      return Removal.LIVE;
    }
    members.remove(id);
    counts.decrementAndGet(m.state().getNumber());
    publish(published.topology().without(id));
    return Removal.REMOVED;
  }

  /** Lost workers whose last heartbeat is at least {@code afterMs} old, sorted. */
  public List<String> lostLongerThan(long nowMs, long afterMs) {
    List<String> out = new ArrayList<>();
    for (Member m : members.values()) {
      if (!m.live() && nowMs - m.lastHeartbeatMs() >= afterMs) {
        out.add(m.decl().workerId());
      }
    }
    return out;
  }

  /** Whether {@code id} has a live session, as of the last change; any thread. */
  public boolean isLive(String id) {
    Member m = published.members().get(id);
    return m != null && m.live();
  }

  /** The live session token of {@code id}, or 0, as of the last change; any thread. */
  public long token(String id) {
    Member m = published.members().get(id);
    return m == null ? 0 : m.sessionToken();
  }

  /** A consistent, immutable view as of the last change; any thread, never waits. */
  public View view() {
    return published;
  }
}
