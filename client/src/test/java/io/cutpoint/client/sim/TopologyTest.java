package io.cutpoint.client.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The topologies and the choice of initiators the simulator relies on. */
class TopologyTest {

  @Test
  void shapesHaveTheExpectedChannels() {
    assertThat(Topology.ring(4).channels()).hasSize(4);
    assertThat(Topology.line(4).channels()).hasSize(6);
    assertThat(Topology.star(4).channels()).hasSize(6);
    assertThat(Topology.fullMesh(4).channels()).hasSize(12);
    assertThat(Topology.loneWorker().workers()).containsExactly("w0");
    assertThat(Topology.loneWorker().channels()).isEmpty();
    Topology withIsolated = Topology.ring(3).withIsolatedWorker();
    assertThat(withIsolated.outgoing("w3")).isEmpty();
    assertThat(withIsolated.incoming("w3")).isEmpty();
  }

  @Test
  void randomStronglyConnectedTopologiesReachEveryWorkerFromAnyWorker() {
    for (long seed = 0; seed < 200; seed++) {
      Topology t = Topology.randomStronglyConnected(6, 0.2, new SplittableRandom(seed));
      for (String w : t.workers()) {
        assertThat(t.reachableFrom(List.of(w))).as("from %s in %s", w, t).isEqualTo(t.workers());
      }
    }
  }

  @Test
  void coveringInitiatorsOfADagIncludeEverySource() {
    for (long seed = 0; seed < 200; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      Topology dag = Topology.randomDag(6, 0.4, r);
      var initiators = dag.coveringInitiators(List.of(), r);
      assertThat(initiators).containsAll(dag.sources());
      assertThat(dag.reachableFrom(initiators)).isEqualTo(dag.workers());
    }
  }

  @Test
  void anIsolatedWorkerMustInitiateItself() {
    Topology t = Topology.ring(3).withIsolatedWorker();
    assertThat(t.coveringInitiators(List.of("w0"), new SplittableRandom(1)))
        .containsExactly("w0", "w3");
    assertThat(Topology.ring(3).coveringInitiators(List.of("w1"), new SplittableRandom(1)))
        .containsExactly("w1");
  }
}
