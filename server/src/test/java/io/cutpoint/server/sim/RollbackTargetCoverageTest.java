package io.cutpoint.server.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.client.sim.SimNetwork;
import io.cutpoint.server.analysis.InMemorySnapshotStore;
import io.cutpoint.server.lifecycle.FailureReason;
import io.cutpoint.server.membership.Declaration;
import io.cutpoint.server.rollback.RollbackStatus;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The production rollback core ({@code RollbackCoordinator}) on the simulator's loop and store: a
 * rollback being prepared holds nobody halted that was running, and a target that leaves a worker
 * with channels outside it is refused, also when that worker has not rejoined a restarted
 * coordinator yet.
 */
class RollbackTargetCoverageTest {

  private final SimNetwork network = new SimNetwork(List.of(), new SplittableRandom(1), 1);
  private final SimLoop loop = new SimLoop(network);
  private final InMemorySnapshotStore store = new InMemorySnapshotStore();

  private CoordinatorNode coordinator() {
    return new CoordinatorNode(
        loop,
        store,
        () -> 1,
        false,
        new CoordinatorNode.Observer() {
          @Override
          public void ended(SnapshotManifest manifest, FailureReason reason) {}

          @Override
          public void problem(String description) {
            throw new AssertionError(description);
          }
        });
  }

  private void runAll() {
    while (network.step()) {
      // the loop's tasks and the store's operations, in time order
    }
  }

  private static WorkerDecl decl(String id, List<String> out, List<String> in) {
    return WorkerDecl.newBuilder()
        .setWorkerId(id)
        .setChannelAddress("sim:" + id)
        .addAllOutgoing(out)
        .addAllIncoming(in)
        .build();
  }

  /** A COMPLETE manifest (no pieces: the coverage is checked before the checksums). */
  private void complete(long id, WorkerDecl... workers) {
    SnapshotManifest m =
        SnapshotManifest.newBuilder()
            .setSnapshotId(id)
            .setEpoch(1)
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
            .setTopology(Topology.newBuilder().addAllWorkers(List.of(workers)))
            .build();
    store.createPending(m);
    store.commit(m.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).build());
  }

  private static Throwable refusal(CompletableFuture<?> f) {
    assertThat(f).isCompletedExceptionally();
    return f.handle((r, e) -> e).join();
  }

  @Test
  void aRollbackBeingPreparedHoldsNoRunningWorkerSoARefusalLeavesNoneHalted() {
    CoordinatorNode c = coordinator();
    runAll();
    c.membership().join(Declaration.of("a", "sim:a", List.of(), List.of()), 0);

    CompletableFuture<?> asked =
        c.rollback().rollback(RollbackRequest.newBuilder().setSnapshotId(99).build());

    assertThat(c.rollback().status().phase()).isEqualTo(RollbackStatus.Phase.PREPARING);
    assertThat(c.rollback().holdsWorkers()).as("a joiner now is welcomed running").isFalse();
    runAll();
    assertThat(refusal(asked)).hasMessageContaining("no snapshot 99");
    assertThat(c.rollback().holdsWorkers()).isFalse();
  }

  @Test
  void aRollbackResumedAfterARestartHoldsTheJoinersFromTheStart() {
    complete(1, decl("a", List.of(), List.of()));
    store.beginRollback(store.epoch() + 1, 1);

    CoordinatorNode c = coordinator();

    assertThat(c.rollback().holdsWorkers()).isTrue();
  }

  @Test
  void aTargetWithoutAWorkerThatHasChannelsIsRefusedEvenBeforeThatWorkerRejoins() {
    WorkerDecl lone = decl("lone", List.of(), List.of());
    complete(1, lone);
    complete(2, lone, decl("a", List.of("b"), List.of("b")), decl("b", List.of("a"), List.of("a")));
    CoordinatorNode c = coordinator(); // restarted: nobody has rejoined yet
    runAll();

    CompletableFuture<?> asked =
        c.rollback().rollback(RollbackRequest.newBuilder().setSnapshotId(1).build());
    runAll();

    assertThat(refusal(asked))
        .hasMessageContaining("snapshot 1 does not fit the cluster")
        .hasMessageContaining("workers [a, b] have channels but no piece in it");
    assertThat(c.rollback().status().phase()).isEqualTo(RollbackStatus.Phase.NONE);
  }
}
