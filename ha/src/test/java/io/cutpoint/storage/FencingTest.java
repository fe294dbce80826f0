package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ha.FencedException;
import io.cutpoint.ha.LeaderTerm;
import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.ha.Terms;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A store opened under an older leader term can no longer write the catalog once a newer term was
 * taken: not create, commit, finish, delete, pin, roll back, apply retention or reserve ids. The
 * store of the newer term can, and sees nothing of what the fenced one tried.
 */
class FencingTest {
  private static HaTestbed bed;
  private S3SnapshotStore.Location where;

  @BeforeAll
  static void start() throws Exception {
    bed = new HaTestbed();
  }

  @AfterAll
  static void stop() throws Exception {
    bed.close();
  }

  @BeforeEach
  void freshLocation() {
    where = bed.fresh();
  }

  /**
   * A store that learned of a newer term where the caller does not see it (its leftover sweep runs
   * outside the fenced store, a content release logs its failure) says so when asked to resume: the
   * health watch asks through the fenced store, which tells the election. It answered false, so the
   * old leader stayed NOT_SERVING while holding the lead, and no standby took over.
   */
  @Test
  void aStoreFencedOnAPathThatDoesNotThrowItSaysSoWhenAskedToResume() {
    LeaderTerm first = bed.take(where);
    S3SnapshotStore old = bed.open(where, first);
    SnapshotFixture later = new SnapshotFixture(old.allocateSnapshotId(), 300, 128);
    LeaderTerm second = bed.take(where);
    assertThatThrownBy(() -> old.createPending(later.pending()))
        .isInstanceOf(FencedException.class); // a caller that logs this and goes on

    assertThat(old.unavailable()).hasValueSatisfying(why -> assertThat(why).contains("fenced"));
    assertThatThrownBy(old::resume)
        .isInstanceOf(FencedException.class)
        .hasMessageContaining("the current leader term is " + second.number());
  }

  @Test
  void aStoreOfAnOlderTermCannotCommitCreateFinishOrDeleteWhileTheNewerOneCan() {
    LeaderTerm first = bed.take(where);
    S3SnapshotStore old = bed.open(where, first);
    SnapshotFixture done = new SnapshotFixture(old.allocateSnapshotId(), 300, 128);
    done.store(old);
    SnapshotFixture inFlight = new SnapshotFixture(old.allocateSnapshotId(), 300, 128);
    old.createPending(inFlight.pending());
    inFlight.writePieces(old);
    SnapshotFixture other = new SnapshotFixture(old.allocateSnapshotId(), 300, 128);
    old.createPending(other.pending());

    LeaderTerm second = bed.take(where);
    assertThat(second.number()).isEqualTo(first.number() + 1);

    assertThatThrownBy(() -> old.commit(inFlight.complete()))
        .isInstanceOf(FencedException.class)
        .hasMessageContaining(
            "fenced: cannot commit snapshot " + inFlight.id + " under leader " + first)
        .hasMessageContaining("the current leader term is " + second.number());
    SnapshotFixture later = new SnapshotFixture(inFlight.id + 10, 300, 128);
    assertThatThrownBy(() -> old.createPending(later.pending()))
        .isInstanceOf(FencedException.class);
    assertThatThrownBy(() -> old.finish(other.aborted("timeout")))
        .isInstanceOf(FencedException.class);
    assertThatThrownBy(() -> old.delete(done.id)).isInstanceOf(FencedException.class);
    assertThatThrownBy(() -> old.setPinned(done.id, true)).isInstanceOf(FencedException.class);
    assertThatThrownBy(() -> old.beginRollback(5, done.id)).isInstanceOf(FencedException.class);
    assertThatThrownBy(() -> inFlight.writeWorker(old, "a"))
        .as("once fenced, pieces are refused too")
        .isInstanceOf(FencedException.class);
    assertThat(old.unavailable()).hasValueSatisfying(why -> assertThat(why).contains("fenced"));

    // Nothing of it reached the catalog: the snapshot stays PENDING for the new leader to abort.
    S3SnapshotStore current = bed.open(where, second);
    assertThat(current.abortedOnOpen()).containsExactlyInAnyOrder(inFlight.id, other.id);
    assertThat(current.manifest(inFlight.id).orElseThrow().getReason())
        .isEqualTo("coordinator restarted");
    assertThat(current.manifest(done.id).orElseThrow().getPinned()).isFalse();
    assertThat(current.epoch()).isZero();
    assertThat(current.manifest(later.id)).isEmpty();
    assertThat(bed.objects(where, inFlight.id)).isEmpty();

    // The store of the current term writes.
    SnapshotFixture next = new SnapshotFixture(current.allocateSnapshotId(), 300, 128);
    next.store(current);
    assertThat(current.delete(done.id)).isTrue();
    current.beginRollback(5, next.id);
    current.finishRollback(5);
    assertThat(current.latestComplete().orElseThrow().getSnapshotId()).isEqualTo(next.id);
    assertThat(old.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)))
        .as("the fenced store still reads")
        .extracting(SnapshotManifest::getSnapshotId)
        .containsExactly(next.id);
  }

  @Test
  void aFencedStoreCannotFinishARollbackApplyRetentionOrReserveIds() {
    S3SnapshotStore.Options oneId =
        new S3SnapshotStore.Options(1, HaTestbed.OPTIONS.partSize(), HaTestbed.OPTIONS.clock());
    S3SnapshotStore old = bed.open(where, bed.take(where), oneId);
    long lastId = 0;
    for (int i = 0; i < 3; i++) {
      SnapshotFixture snap = new SnapshotFixture(old.allocateSnapshotId(), 100, 64);
      snap.store(old);
      lastId = snap.id;
    }
    old.beginRollback(2, lastId);
    bed.take(where);

    assertThatThrownBy(() -> old.finishRollback(2)).isInstanceOf(FencedException.class);
    assertThatThrownBy(() -> old.applyRetention(1)).isInstanceOf(FencedException.class);
    assertThatThrownBy(old::allocateSnapshotId).isInstanceOf(FencedException.class);
    S3SnapshotStore current = bed.open(where);
    assertThat(current.list(Set.of())).hasSize(3);
    assertThat(current.rollbackInProgress()).isPresent();
  }

  @Test
  void piecesAnOldLeaderWritesAfterTheNewOneOpenedAreRemovedByRetention() {
    S3SnapshotStore old = bed.open(where);
    SnapshotFixture snap = new SnapshotFixture(old.allocateSnapshotId(), 300, 128);
    old.createPending(snap.pending());
    S3SnapshotStore current = bed.open(where);
    assertThat(current.abortedOnOpen()).containsExactly(snap.id);

    // The old leader has not tried a catalog write yet, so it does not know; S3 takes the puts.
    snap.writePieces(old);
    assertThat(bed.objects(where, snap.id)).isNotEmpty();
    assertThatThrownBy(() -> old.commit(snap.complete())).isInstanceOf(FencedException.class);

    current.applyRetention(5);
    assertThat(bed.objects(where, snap.id)).isEmpty();
    assertThat(current.manifest(snap.id).orElseThrow().getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
  }

  @Test
  void openingUnderATermThatWasSupersededFails() {
    LeaderTerm first = bed.take(where);
    bed.take(where);
    assertThatThrownBy(() -> bed.open(where, first))
        .isInstanceOf(FencedException.class)
        .hasMessageContaining("fenced: cannot open under leader " + first);
  }

  @Test
  void takersRacingEachOtherEachGetADistinctTerm() throws Exception {
    bed.take(where); // the catalog nodes exist before the race
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      List<java.util.concurrent.Future<LeaderTerm>> taken = new java.util.ArrayList<>();
      for (int i = 0; i < 12; i++) {
        taken.add(pool.submit(() -> bed.take(where)));
      }
      java.util.Set<Long> numbers = new java.util.TreeSet<>();
      for (java.util.concurrent.Future<LeaderTerm> f : taken) {
        numbers.add(f.get(60, java.util.concurrent.TimeUnit.SECONDS).number());
      }
      assertThat(numbers).hasSize(12);
      assertThat(Terms.current(bed.zk, where.catalogPath()).number())
          .isEqualTo(java.util.Collections.max(numbers));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void termsIncreaseByOneAndEachTakerGetsItsOwn() {
    LeaderTerm a = bed.take(where);
    LeaderTerm b = bed.take(where);
    assertThat(b.number()).isEqualTo(a.number() + 1);
    assertThat(b.version()).isGreaterThan(a.version());
    assertThat(Terms.current(bed.zk, where.catalogPath())).isEqualTo(b);
  }
}
