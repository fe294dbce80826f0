package io.cutpoint.client.sim;

import java.util.SplittableRandom;

/** Families of topologies the property tests draw from; sizes come from the schedule's seed. */
public enum TopologyKind {
  RING,
  LINE,
  STAR,
  FULL_MESH,
  RANDOM_STRONGLY_CONNECTED,
  /** A random DAG: not strongly connected, so every source must be an initiator. */
  DAG,
  /** A single worker with no channels. */
  LONE_WORKER,
  /** A ring plus a worker with no channels at all. */
  RING_WITH_ISOLATED_WORKER;

  /** Builds one topology of this kind with 2 to {@code maxWorkers} workers. */
  public Topology build(SplittableRandom random, int maxWorkers) {
    int n = 2 + random.nextInt(Math.max(1, maxWorkers - 1));
    return switch (this) {
      case RING -> Topology.ring(n);
      case LINE -> Topology.line(n);
      case STAR -> Topology.star(n);
      case FULL_MESH -> Topology.fullMesh(Math.min(n, 5));
      case RANDOM_STRONGLY_CONNECTED -> Topology.randomStronglyConnected(n, 0.3, random);
      case DAG -> Topology.randomDag(n + 1, 0.4, random);
      case LONE_WORKER -> Topology.loneWorker();
      case RING_WITH_ISOLATED_WORKER -> Topology.ring(n).withIsolatedWorker();
    };
  }
}
