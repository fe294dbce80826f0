package io.cutpoint.server.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.LocalCopyHeld;
import io.cutpoint.api.v1.WorkerState;
import io.cutpoint.cut.ChannelId;
import java.util.List;
import org.junit.jupiter.api.Test;

class MembershipTest {
  private static final LocalCopyHeld NONE = LocalCopyHeld.getDefaultInstance();

  private static Declaration decl(String id, String address, List<String> out, List<String> in) {
    return Declaration.of(id, address, out, in);
  }

  @Test
  void aChannelDeclaredByOneEndIsPendingUntilTheOtherEndDeclaresIt() {
    ClusterTopology t = ClusterTopology.empty().with(decl("a", "h:1", List.of("b"), List.of()));
    assertThat(t.pendingChannels()).containsExactly(ChannelId.of("a", "b"));
    assertThat(t.closed()).isFalse();
    t = t.with(decl("b", "h:2", List.of(), List.of("a")));
    assertThat(t.pendingChannels()).isEmpty();
    assertThat(t.channels()).containsExactly(ChannelId.of("a", "b"));
  }

  @Test
  void onlyALostWorkerIsRemovedAndItLeavesTheTopologyAndTheCounts() {
    Membership m = new Membership();
    long a = ((Membership.Accepted) m.join(decl("a", "h:1", List.of(), List.of()), 0)).token();
    m.join(decl("b", "h:2", List.of(), List.of()), 0);
    assertThat(m.remove("a")).isEqualTo(Membership.Removal.LIVE);
    assertThat(m.remove("x")).isEqualTo(Membership.Removal.UNKNOWN);
    m.lost("a", a);
    assertThat(m.count(WorkerState.WORKER_STATE_LOST)).isEqualTo(1);
    assertThat(m.remove("a")).isEqualTo(Membership.Removal.REMOVED);
    assertThat(m.count(WorkerState.WORKER_STATE_LOST)).isZero();
    assertThat(m.view().members()).containsOnlyKeys("b");
    assertThat(m.view().topology().workerIds()).containsExactly("b");
  }

  @Test
  void lostLongerThanNamesOnlyLostWorkersSilentForThatLong() {
    Membership m = new Membership();
    long a = ((Membership.Accepted) m.join(decl("a", "h:1", List.of(), List.of()), 1_000)).token();
    long b = ((Membership.Accepted) m.join(decl("b", "h:2", List.of(), List.of()), 1_000)).token();
    m.join(decl("c", "h:3", List.of(), List.of()), 0);
    m.heartbeat("b", b, 5_000, NONE);
    m.lost("a", a);
    m.lost("b", b);
    assertThat(m.lostLongerThan(10_000, 9_000)).containsExactly("a");
    assertThat(m.lostLongerThan(10_000, 5_000)).containsExactly("a", "b");
  }

  @Test
  void aSecondLiveSessionForOneWorkerIsRefused() {
    Membership m = new Membership();
    assertThat(m.join(decl("a", "h:1", List.of(), List.of()), 0))
        .isInstanceOf(Membership.Accepted.class);
    assertThat(m.join(decl("a", "h:1", List.of(), List.of()), 0))
        .isInstanceOfSatisfying(
            Membership.Refused.class,
            r -> assertThat(r.refusal()).isEqualTo(Membership.Refusal.ALREADY_EXISTS));
  }

  @Test
  void declarationsThatContradictALiveWorkerAreRefused() {
    Membership m = new Membership();
    m.join(decl("b", "h:2", List.of(), List.of()), 0); // b receives from nobody
    assertThat(m.join(decl("a", "h:1", List.of("b"), List.of()), 0))
        .isInstanceOfSatisfying(
            Membership.Refused.class,
            r -> {
              assertThat(r.refusal()).isEqualTo(Membership.Refusal.CONTRADICTS_TOPOLOGY);
              assertThat(r.message())
                  .contains("a declares a channel to b but b does not declare one from a");
            });
  }

  @Test
  void aLostWorkerMayRejoinAndItsPeersLearnItsNewAddress() {
    Membership m = new Membership();
    long a = ((Membership.Accepted) m.join(decl("a", "h:1", List.of("b"), List.of()), 0)).token();
    Membership.Accepted b =
        (Membership.Accepted) m.join(decl("b", "h:2", List.of(), List.of("a")), 0);
    assertThat(b.peerAddresses()).containsEntry("a", "h:1");
    assertThat(b.peerUpdates()).containsExactly("a");

    assertThat(m.lost("a", a)).isTrue();
    assertThat(m.lost("a", a)).isFalse();
    assertThat(m.view().members().get("a").state()).isEqualTo(WorkerState.WORKER_STATE_LOST);
    Membership.Accepted again =
        (Membership.Accepted) m.join(decl("a", "h:9", List.of("b"), List.of()), 5);
    assertThat(again.peerUpdates()).containsExactly("b");
    assertThat(again.channelsChanged()).isFalse();
    assertThat(m.heartbeat("a", a, 6, NONE))
        .as("the old session's heartbeats are ignored")
        .isFalse();
    assertThat(m.heartbeat("a", again.token(), 6, NONE)).isTrue();
  }

  @Test
  void aLocalCopyIsTheOneTheSessionsLastHeartbeatReported() {
    Membership m = new Membership();
    long a = ((Membership.Accepted) m.join(decl("a", "h:1", List.of(), List.of()), 0)).token();
    LocalCopyHeld seven =
        LocalCopyHeld.newBuilder().setSnapshotId(7).setStateBytes(10).setStateCrc32C(3).build();
    m.heartbeat("a", a, 1, seven);
    m.setState("a", WorkerState.WORKER_STATE_HALTED);
    assertThat(m.view().members().get("a").localCopy()).isEqualTo(seven);
    m.heartbeat("a", a, 2, NONE);
    assertThat(m.view().members().get("a").localCopy().getSnapshotId()).isZero();
    m.heartbeat("a", a, 3, seven);
    m.lost("a", a);
    long again = ((Membership.Accepted) m.join(decl("a", "h:1", List.of(), List.of()), 4)).token();
    assertThat(m.view().members().get("a").localCopy())
        .as("a new session reports its own copy; the old one's is not assumed")
        .isEqualTo(NONE);
    assertThat(m.heartbeat("a", a, 5, seven)).isFalse();
    assertThat(m.view().members().get("a").localCopy()).isEqualTo(NONE);
    assertThat(m.heartbeat("a", again, 5, seven)).isTrue();
    assertThat(m.view().members().get("a").localCopy()).isEqualTo(seven);
  }

  @Test
  void silentSessionsExpire() {
    Membership m = new Membership();
    long a = ((Membership.Accepted) m.join(decl("a", "h:1", List.of(), List.of()), 0)).token();
    long b = ((Membership.Accepted) m.join(decl("b", "h:2", List.of(), List.of()), 0)).token();
    m.heartbeat("a", a, 900, NONE);
    assertThat(m.expired(1000, 500)).containsOnlyKeys("b").containsEntry("b", b);
  }

  @Test
  void workerIdsAndAddressesAreValidated() {
    assertThat(WorkerIds.valid("worker-1.a_B")).isTrue();
    assertThat(WorkerIds.problem("")).isPresent();
    assertThat(WorkerIds.problem("has space")).isPresent();
    assertThat(WorkerIds.problem("x".repeat(128))).isEmpty();
    assertThat(WorkerIds.problem("x".repeat(129)))
        .hasValueSatisfying(p -> assertThat(p).contains("129"));
    assertThat(WorkerIds.addressProblem("localhost:8080")).isEmpty();
    assertThat(WorkerIds.addressProblem("localhost")).isPresent();
    assertThat(WorkerIds.addressProblem("localhost:0")).isPresent();
    assertThat(WorkerIds.addressProblem("[::1]:80")).isEmpty();
  }

  /**
   * The view and the counts are kept up to date change by change, not rebuilt: after every step of
   * seeded random joins (new channels on a rejoin too), losses, state changes, heartbeats and
   * removals, they equal what a rebuild from the table gives.
   */
  @Test
  void theViewAndTheCountsEqualARebuildAfterEveryChange() {
    for (long seed = 1; seed <= 20; seed++) {
      java.util.Random r = new java.util.Random(seed);
      Membership m = new Membership();
      java.util.Map<String, Long> tokens = new java.util.HashMap<>();
      for (int step = 0; step < 300; step++) {
        String id = "w" + r.nextInt(12);
        long token = tokens.getOrDefault(id, 0L);
        switch (r.nextInt(5)) {
          case 0 -> {
            String peer = "w" + r.nextInt(12);
            List<String> out = peer.equals(id) || r.nextBoolean() ? List.of() : List.of(peer);
            if (m.join(decl(id, "h:" + step, out, List.of()), step)
                instanceof Membership.Accepted a) {
              tokens.put(id, a.token());
            }
          }
          case 1 -> m.lost(id, token);
          case 2 ->
              m.setState(
                  id,
                  List.of(
                          WorkerState.WORKER_STATE_HALTED,
                          WorkerState.WORKER_STATE_RESTORED,
                          WorkerState.WORKER_STATE_RUNNING)
                      .get(r.nextInt(3)));
          case 3 -> m.heartbeat(id, token, step, NONE);
          default -> m.remove(id);
        }
        Membership.View v = m.view();
        assertThat(v.topology())
            .as("seed %d, step %d", seed, step)
            .isEqualTo(
                ClusterTopology.of(
                    v.members().values().stream().map(Membership.Member::decl).toList()));
        for (WorkerState state : List.of(WorkerState.values())) {
          if (state != WorkerState.UNRECOGNIZED) {
            assertThat(m.count(state))
                .as("seed %d, step %d, %s", seed, step, state)
                .isEqualTo(v.members().values().stream().filter(x -> x.state() == state).count());
          }
        }
      }
    }
  }
}
