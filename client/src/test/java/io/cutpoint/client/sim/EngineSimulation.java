package io.cutpoint.client.sim;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.client.sim.SimResult.Problem;
import io.cutpoint.client.sim.SimResult.ProblemKind;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.CutViolation;
import io.cutpoint.cut.LocalSnapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Runs one seeded schedule of the snapshot engine alone: {@link EngineNode}s over a {@link
 * SimNetwork}, random bank transfers, overlapping snapshots with several initiators each, and
 * aborts, then checks every snapshot: it completed at every worker, its cut passes {@link
 * CutVerifier}, and it conserves money. No transport, epochs or rollbacks: {@code
 * io.cutpoint.server.sim.Simulation} runs the real worker cores with those. What this adds is speed
 * and the deliberately wrong engines of {@link Fault}. The schedule is a pure function of
 * (topology, seed, config, fault).
 */
public final class EngineSimulation {

  private static final long MAX_EVENTS = 2_000_000;

  private final String scenario;
  private final Topology topology;
  private final long seed;
  private final SimConfig config;
  private final Fault fault;
  private final MarkerLane lane;
  private final SplittableRandom random;
  private final SimNetwork network;
  private final Map<String, EngineNode> workers = new LinkedHashMap<>();
  private final SortedMap<Long, Map<String, CompletedLocalSnapshot>> pieces = new TreeMap<>();
  private final List<Problem> problems = new ArrayList<>();
  private final List<String> trace;
  private final Set<Long> aborted = new HashSet<>();
  private final SortedMap<Long, String> cutContents = new TreeMap<>();
  private long redundantStarts;
  private int maxConcurrent;

  public EngineSimulation(
      String scenario,
      Topology topology,
      long seed,
      SimConfig config,
      Fault fault,
      MarkerLane lane,
      boolean withTrace) {
    this.scenario = scenario;
    this.topology = topology;
    this.seed = seed;
    this.config = config;
    this.fault = fault;
    this.lane = lane;
    this.random = new SplittableRandom(seed);
    this.network = new SimNetwork(topology.channels(), random, config.maxDelay());
    this.trace = withTrace ? new ArrayList<>() : null;
    if (withTrace) {
      network.trace(trace::add);
    }
    EngineNode.Outcomes outcomes =
        new EngineNode.Outcomes() {
          @Override
          public void completed(String workerId, CompletedLocalSnapshot piece) {
            Map<String, CompletedLocalSnapshot> got =
                pieces.computeIfAbsent(piece.cut().snapshotId(), k -> new TreeMap<>());
            got.put(workerId, piece);
            note(workerId + " completed S=" + piece.cut().snapshotId());
          }

          @Override
          public void failed(String workerId, long snapshotId, String reason) {
            problems.add(
                new Problem(ProblemKind.INCOMPLETE, snapshotId, workerId + " failed: " + reason));
          }
        };
    for (String id : topology.workers()) {
      workers.put(
          id,
          new EngineNode(id, topology, network, random, config, fault, lane, outcomes, workers));
    }
  }

  /** A schedule on a topology of {@code kind}, built from the seed too, on the fault's lane. */
  public static SimResult run(TopologyKind kind, long seed, SimConfig config, Fault fault) {
    return run(kind, seed, config, fault, fault.lane());
  }

  /** A schedule on a topology of {@code kind}, built from the seed too. */
  public static SimResult run(
      TopologyKind kind, long seed, SimConfig config, Fault fault, MarkerLane lane) {
    return forKind(kind, seed, config, fault, lane, false).run();
  }

  /** A schedule on a given topology, with markers in order. */
  public static SimResult run(Topology topology, long seed, SimConfig config, Fault fault) {
    return new EngineSimulation(
            topology.name(), topology, seed, config, fault, MarkerLane.IN_ORDER, false)
        .run();
  }

  public static EngineSimulation forKind(
      TopologyKind kind,
      long seed,
      SimConfig config,
      Fault fault,
      MarkerLane lane,
      boolean withTrace) {
    Topology t = kind.build(new SplittableRandom(seed ^ 0x5DEECE66DL), config.maxWorkers());
    return new EngineSimulation(kind.name(), t, seed, config, fault, lane, withTrace);
  }

  private void note(String line) {
    if (trace != null) {
      trace.add(network.now() + " " + line);
    }
  }

  /** Runs the schedule to the end and checks it. */
  public SimResult run() {
    List<EngineNode> senders = workers.values().stream().filter(EngineNode::canSend).toList();
    for (int i = 0; i < config.transfers() && !senders.isEmpty(); i++) {
      EngineNode w = senders.get(random.nextInt(senders.size()));
      network.at(random.nextLong(config.horizon()), w::transferAtRandom);
    }
    Set<Long> ids = new HashSet<>();
    List<String> all = List.copyOf(topology.workers());
    for (int i = 0; i < config.snapshots(); i++) {
      long snapshotId = random.nextLong(); // any long is a valid id
      if (!ids.add(snapshotId)) {
        continue;
      }
      pieces.put(snapshotId, new TreeMap<>());
      long at = random.nextLong(config.horizon());
      List<String> chosen = new ArrayList<>();
      int k = 1 + random.nextInt(config.maxChosenInitiators());
      for (int j = 0; j < k; j++) {
        chosen.add(all.get(random.nextInt(all.size())));
      }
      for (String initiator : topology.coveringInitiators(chosen, random)) {
        long skew = random.nextLong(config.maxInitiationSkew() + 1);
        network.at(at + skew, () -> initiate(initiator, snapshotId));
      }
      if (random.nextInt(100) < config.abortPercent()) {
        aborted.add(snapshotId);
        for (EngineNode w : workers.values()) {
          network.at(
              at + random.nextLong(config.horizon()),
              () -> {
                note(w.id() + " aborts S=" + snapshotId);
                w.engine().abort(snapshotId);
              });
        }
      }
    }
    long events = 0;
    try {
      while (events < MAX_EVENTS) {
        if (network.step()) {
          events++;
          trackConcurrency();
          continue;
        }
        workers.values().forEach(EngineNode::drain);
        if (!network.step()) {
          break;
        }
        events++;
      }
      if (events >= MAX_EVENTS) {
        problems.add(new Problem(ProblemKind.RUN, null, "no end after " + events + " events"));
      }
    } catch (RuntimeException e) {
      problems.add(new Problem(ProblemKind.ENGINE_ERROR, null, e.toString()));
    }
    if (!has(ProblemKind.ENGINE_ERROR)) {
      checkEnd();
    }
    int complete = checkSnapshots();
    long recorded =
        pieces.values().stream()
            .flatMap(m -> m.values().stream())
            .mapToLong(p -> p.cut().inFlightMessages())
            .sum();
    SimResult.Stats stats =
        new SimResult.Stats(
            events,
            network.itemsSent(),
            ids.size(),
            complete,
            aborted.size(),
            0,
            0,
            recorded,
            redundantStarts,
            maxConcurrent,
            workers.values().stream().mapToLong(EngineNode::overtakingMarkers).sum(),
            workers.values().stream().mapToLong(EngineNode::readAheadMessages).sum());
    return new SimResult(
        scenario,
        seed,
        variantName(fault, lane),
        topology,
        stats,
        SimResult.WorkerStats.NONE,
        List.copyOf(problems),
        cutContents,
        trace == null ? List.of() : List.copyOf(trace));
  }

  /**
   * The variant's name in a replay spec: the fault, or for the correct engine {@code ENGINE} with
   * markers in order and {@code EARLY} with early copies.
   */
  static String variantName(Fault fault, MarkerLane lane) {
    if (fault != Fault.NONE) {
      return fault.name();
    }
    return lane == MarkerLane.EARLY_COPIES ? "EARLY" : "ENGINE";
  }

  private boolean has(ProblemKind kind) {
    return problems.stream().anyMatch(p -> p.kind() == kind);
  }

  private void initiate(String worker, long snapshotId) {
    boolean started = workers.get(worker).initiate(snapshotId);
    note(worker + (started ? " initiates" : " already knows") + " S=" + snapshotId);
    if (!started) {
      redundantStarts++;
    }
  }

  private void trackConcurrency() {
    for (EngineNode w : workers.values()) {
      maxConcurrent = Math.max(maxConcurrent, w.engine().inFlightCount());
    }
  }

  private void checkEnd() {
    long total = 0;
    for (EngineNode w : workers.values()) {
      total += w.account().balance();
      if (!w.engine().inFlight().isEmpty()) {
        problems.add(
            new Problem(
                ProblemKind.INCOMPLETE,
                null,
                w.id() + " still records snapshots " + w.engine().inFlight()));
      }
    }
    for (SimNetwork.Item item : network.inTransit()) {
      problems.add(new Problem(ProblemKind.RUN, null, "item left in transit: " + item));
    }
    long expected = config.initialBalance() * topology.workers().size();
    if (total != expected) {
      problems.add(
          new Problem(
              ProblemKind.RUN, null, "final balances sum to " + total + ", expected " + expected));
    }
  }

  /**
   * A complete snapshot's cut written out: per worker its balance, counters and recorded transfers.
   */
  private static String contentOf(Map<String, CompletedLocalSnapshot> pieces) {
    StringBuilder b = new StringBuilder();
    pieces.forEach(
        (worker, piece) -> {
          LocalSnapshot cut = piece.cut();
          b.append(worker)
              .append(" balance=")
              .append(BankAccount.decode(piece.state().state()))
              .append(" sent=")
              .append(cut.sent())
              .append(" received=")
              .append(cut.received())
              .append(" firstMarkerFrom=")
              .append(cut.firstMarkerFrom())
              .append(" recorded={");
          cut.recordings()
              .forEach(
                  (peer, messages) -> {
                    b.append(peer).append(':');
                    messages.forEach(
                        m ->
                            b.append(' ')
                                .append(m.seq())
                                .append('=')
                                .append(BankAccount.amountOf(m.payload())));
                    b.append(';');
                  });
          b.append("}\n");
        });
    return b.toString();
  }

  private int checkSnapshots() {
    int complete = 0;
    long expected = config.initialBalance() * topology.workers().size();
    for (var e : pieces.entrySet()) {
      long snapshotId = e.getKey();
      Map<String, CompletedLocalSnapshot> got = e.getValue();
      if (got.size() != topology.workers().size() && aborted.contains(snapshotId)) {
        continue; // aborted before every worker completed: nothing to check but the leftovers
      }
      if (got.size() != topology.workers().size()) {
        SortedSet<String> missing = new java.util.TreeSet<>(topology.workers());
        missing.removeAll(got.keySet());
        problems.add(new Problem(ProblemKind.INCOMPLETE, snapshotId, "no piece from " + missing));
        continue;
      }
      complete++;
      cutContents.put(snapshotId, contentOf(got));
      List<LocalSnapshot> cuts = got.values().stream().map(CompletedLocalSnapshot::cut).toList();
      Cut cut = Cut.of(snapshotId, topology.workers(), topology.channels(), cuts);
      for (CutViolation v : CutVerifier.verify(cut)) {
        problems.add(new Problem(ProblemKind.CUT_VIOLATION, snapshotId, v.toString()));
      }
      long total = BankAccount.totalOf(got.values());
      if (total != expected) {
        problems.add(
            new Problem(
                ProblemKind.NOT_CONSERVED,
                snapshotId,
                "balances + money in flight = " + total + ", expected " + expected));
      }
    }
    return complete;
  }
}
