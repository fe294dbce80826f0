package io.cutpoint.client.sim;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.engine.EngineOptions;
import io.cutpoint.client.engine.EngineOutput;
import io.cutpoint.client.engine.SnapshotEngine;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A {@link SnapshotEngine} with a {@link BankAccount} for the engine-level schedules of {@link
 * EngineSimulation}: items go straight from engine to engine over {@link SimNetwork}, with no
 * worker core, epochs or rollbacks around them (the worker-level schedules of {@code
 * io.cutpoint.server.sim.Simulation} run the real {@code WorkerCore}). A {@link Fault} other than
 * NONE bends what the engine emits into a deliberately wrong engine. On {@link
 * MarkerLane#EARLY_COPIES} every marker also travels as an early copy on the network's overtaking
 * lane.
 */
public final class EngineNode implements EngineOutput {

  /** Where a worker's local snapshot outcomes go. */
  public interface Outcomes {
    void completed(String workerId, CompletedLocalSnapshot piece);

    void failed(String workerId, long snapshotId, String reason);
  }

  private record FirstChannel(String peer, List<InTransitMessage> messages) {}

  private final String id;
  private final List<String> outgoing;
  private final SnapshotEngine engine;
  private final BankAccount account;
  private final SimNetwork network;
  private final SplittableRandom random;
  private final SimConfig config;
  private final Fault fault;
  private final MarkerLane lane;
  private final Outcomes outcomes;
  private long overtakingMarkers;
  private long readAheadMessages;
  private final SimNetwork.Receiver receiver = this::receive;
  private final Map<String, List<Long>> heldMarkers = new HashMap<>();
  private final Map<Long, FirstChannel> firstChannels = new HashMap<>();
  private final Map<String, EngineNode> peers;

  EngineNode(
      String id,
      Topology topology,
      SimNetwork network,
      SplittableRandom random,
      SimConfig config,
      Fault fault,
      MarkerLane lane,
      Outcomes outcomes,
      Map<String, EngineNode> peers) {
    this.id = id;
    SortedSet<String> out = topology.outgoing(id);
    this.outgoing = List.copyOf(out);
    this.account = new BankAccount(config.initialBalance());
    this.network = network;
    this.random = random;
    this.config = config;
    this.fault = fault;
    this.lane = lane;
    this.outcomes = outcomes;
    this.peers = peers;
    this.engine =
        new SnapshotEngine(
            id,
            out,
            topology.incoming(id),
            s -> account.capture(),
            this,
            EngineOptions.defaults().withNanoClock(network::now));
  }

  public String id() {
    return id;
  }

  public SnapshotEngine engine() {
    return engine;
  }

  public BankAccount account() {
    return account;
  }

  /** Early copies of markers that arrived here before data sent ahead of them. */
  public long overtakingMarkers() {
    return overtakingMarkers;
  }

  /** Data messages handed to the engine with early copies, ahead of their delivery. */
  public long readAheadMessages() {
    return readAheadMessages;
  }

  public boolean canSend() {
    return !outgoing.isEmpty();
  }

  /** The application moves a random part of its balance to a random peer. */
  public void transferAtRandom() {
    if (outgoing.isEmpty()) {
      return;
    }
    String to = outgoing.get(random.nextInt(outgoing.size()));
    long amount = random.nextLong(Math.min(account.balance(), 200) + 1);
    byte[] payload = account.withdraw(amount);
    long seq = engine.send(to, payload);
    network.transmit(id, to, new SimNetwork.Data(seq, payload), peers.get(to).receiver);
    if (fault == Fault.LATE_MARKERS) {
      releaseHeldMarkers(to);
    }
  }

  /** Starts {@code snapshotId} as an initiator; false when a marker of it got here first. */
  public boolean initiate(long snapshotId) {
    return engine.tryStartSnapshot(snapshotId);
  }

  private void receive(String from, SimNetwork.Item item) {
    if (item instanceof SimNetwork.Data d) {
      if (fault == Fault.RECORDS_FIRST_MARKER_CHANNEL) {
        firstChannels.values().stream()
            .filter(f -> f.peer.equals(from))
            .forEach(f -> f.messages.add(new InTransitMessage(d.seq(), d.payload())));
      }
      engine.onData(from, d.seq(), d.payload());
    } else if (item instanceof SimNetwork.EarlyMarker m) {
      if (m.sentCount() > engine.received(from)) {
        overtakingMarkers++;
      }
      if (fault == Fault.EARLY_MARKER_IGNORES_BOUNDARY) {
        engine.onMarker(from, m.snapshotId(), -1);
      } else {
        engine.onEarlyMarker(from, m.snapshotId(), m.sentCount(), readAhead(from, m.snapshotId()));
      }
    } else {
      SimNetwork.Marker m = (SimNetwork.Marker) item;
      boolean known = engine.isKnown(m.snapshotId());
      engine.onMarker(from, m.snapshotId(), m.sentCount());
      if (fault == Fault.RECORDS_FIRST_MARKER_CHANNEL
          && !known
          && engine.inFlight().contains(m.snapshotId())) {
        firstChannels.put(m.snapshotId(), new FirstChannel(from, new ArrayList<>()));
      }
    }
  }

  /**
   * What this worker has read ahead on {@code from}'s channel when an early copy of {@code
   * snapshotId}'s marker comes: a random part of the data in transit ahead of the marker itself,
   * oldest first (the messages stay in transit and are delivered in order later).
   */
  private List<InTransitMessage> readAhead(String from, long snapshotId) {
    List<SimNetwork.Data> ahead = network.dataAheadOf(from, id, snapshotId);
    int n = ahead.isEmpty() ? 0 : random.nextInt(ahead.size() + 1);
    readAheadMessages += n;
    List<InTransitMessage> atHand = new ArrayList<>(n);
    for (SimNetwork.Data d : ahead.subList(0, n)) {
      atHand.add(new InTransitMessage(d.seq(), d.payload()));
    }
    return atHand;
  }

  /** End of the run: markers a LATE_MARKERS worker still holds go out now. */
  void drain() {
    for (String to : outgoing) {
      releaseHeldMarkers(to);
    }
  }

  private void releaseHeldMarkers(String to) {
    List<Long> held = heldMarkers.remove(to);
    if (held != null) {
      for (long snapshotId : held) {
        transmitMarker(to, snapshotId, engine.sent(to));
      }
    }
  }

  private void transmitMarker(String to, long snapshotId, long sentCount) {
    network.transmit(id, to, new SimNetwork.Marker(snapshotId, sentCount), peers.get(to).receiver);
    if (lane == MarkerLane.EARLY_COPIES) {
      network.transmitAhead(
          id, to, new SimNetwork.EarlyMarker(snapshotId, sentCount), peers.get(to).receiver);
    }
  }

  // ------------------------------------------------------------------ EngineOutput

  @Override
  public void sendMarker(String to, long snapshotId, long sentCount) {
    if (fault == Fault.LATE_MARKERS) {
      heldMarkers.computeIfAbsent(to, k -> new ArrayList<>()).add(snapshotId);
    } else {
      transmitMarker(to, snapshotId, sentCount);
    }
  }

  @Override
  public void deliver(String from, long seq, byte[] payload) {
    account.deposit(payload);
    if (random.nextInt(100) < config.forwardPercent()) {
      transferAtRandom(); // an application that reacts to a message by sending
    }
  }

  @Override
  public void completed(CompletedLocalSnapshot piece) {
    outcomes.completed(id, bend(piece));
  }

  @Override
  public void failed(long snapshotId, String reason) {
    outcomes.failed(id, snapshotId, reason);
  }

  private CompletedLocalSnapshot bend(CompletedLocalSnapshot piece) {
    LocalSnapshot cut = piece.cut();
    SortedMap<String, List<InTransitMessage>> recordings = new TreeMap<>(cut.recordings());
    FirstChannel first = firstChannels.remove(cut.snapshotId());
    if (fault == Fault.RECORDS_FIRST_MARKER_CHANNEL && first != null) {
      recordings.put(first.peer, first.messages);
    } else if (fault == Fault.DROPS_CHANNEL_STATE) {
      recordings.replaceAll((peer, msgs) -> List.of());
    } else {
      return piece;
    }
    return new CompletedLocalSnapshot(
        new LocalSnapshot(
            cut.snapshotId(),
            cut.workerId(),
            cut.sent(),
            cut.received(),
            recordings,
            cut.firstMarkerFrom()),
        piece.state(),
        piece.recordingNanos());
  }
}
