package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.ha.S3SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SnapshotStoreContract} and the cases of {@code RetentionTest}, run against {@link
 * S3SnapshotStore} on a real ZooKeeper and a real S3 API server, and what is the object store's
 * own. "Reopen" is a new store under a new leader term, as after a failover.
 */
class S3SnapshotStoreTest extends SnapshotStoreContract {
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

  @Override
  S3SnapshotStore open() {
    return bed.open(where);
  }

  @Override
  void assertHeldBelowTheStore(long snapshotId, boolean held) {
    if (held) {
      assertThat(bed.objects(where, snapshotId)).isNotEmpty();
    } else {
      assertThat(bed.objects(where, snapshotId)).isEmpty();
    }
  }

  /** A committed snapshot and one left PENDING with all its pieces, by a store now closed. */
  private SnapshotFixture[] committedAndLeftPending() {
    S3SnapshotStore store = open();
    SnapshotFixture[] s = committedAndPending(store, 3000, 1024);
    store.close();
    assertThat(bed.objects(where, s[1].id)).isNotEmpty();
    return s;
  }

  @Test
  void pendingLeftoversAreAbortedWithTheirObjectsRemovedOnReopen() {
    SnapshotFixture[] s = committedAndLeftPending();
    SnapshotFixture done = s[0];
    SnapshotFixture left = s[1];

    S3SnapshotStore reopened = open();
    assertThat(reopened.abortedOnOpen()).containsExactly(left.id);
    assertThat(reopened.removedOnOpen()).containsExactly(left.id);
    SnapshotManifest m = reopened.manifest(left.id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(m.getReason()).isEqualTo("coordinator restarted");
    assertThat(reopened.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_PENDING))).isEmpty();
    assertThat(bed.objects(where, left.id)).isEmpty();
    assertThat(bed.objects(where, done.id)).isNotEmpty();
    assertReadsBack(reopened, done);
  }

  /**
   * A new leader opens the store without walking the bucket and sweeps once it serves: the earlier
   * leader's uncommitted objects are still there after the open and gone after the sweep, while a
   * snapshot this term writes meanwhile (a higher id, still pending) keeps every piece.
   */
  @Test
  void aDeferredSweepRemovesTheEarlierLeadersLeftoversAndNothingOfThisTerm() {
    SnapshotFixture[] s = committedAndLeftPending();
    SnapshotFixture done = s[0];
    SnapshotFixture left = s[1];

    S3SnapshotStore reopened = bed.openDeferringSweep(where);
    assertThat(reopened.abortedOnOpen()).containsExactly(left.id);
    assertThat(reopened.removedOnOpen()).isEmpty();
    assertThat(bed.objects(where, left.id)).as("left for the sweep").isNotEmpty();
    SnapshotFixture now = new SnapshotFixture(reopened.allocateSnapshotId(), 3000, 1024);
    reopened.createPending(now.pending());
    now.writePieces(reopened);

    assertThat(reopened.sweepLeftovers()).containsExactly(left.id);
    assertThat(bed.objects(where, left.id)).isEmpty();
    assertThat(bed.objects(where, now.id)).as("this term's pending snapshot").isNotEmpty();
    reopened.commit(now.complete());
    assertReadsBack(reopened, now);
    assertReadsBack(reopened, done);
  }

  @Test
  void objectsOfSnapshotsWithoutACatalogEntryAreRemovedOnOpen() {
    S3SnapshotStore store = open();
    SnapshotFixture done = new SnapshotFixture(store.allocateSnapshotId(), 300, 128);
    done.store(store);
    store.close();
    // pieces of snapshot 9999 that no catalog ever knew (a leader died between its upload and
    // its createPending, or wrote after it was fenced)
    bed.putRaw(HaTestbed.key(where, 9999, "a/state/0000000000"), new byte[] {1, 2, 3});

    S3SnapshotStore reopened = open();
    assertThat(reopened.removedOnOpen()).containsExactly(9999L);
    assertThat(bed.objects(where, 9999)).isEmpty();
    assertReadsBack(reopened, done);
  }

  @Test
  void retentionKeepsTheNewestCompletePlusPinnedAndABoundedHistoryAndRemovesTheObjects() {
    S3SnapshotStore store = open();
    List<Long> complete = new ArrayList<>();
    List<Long> failed = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 200, 64);
      if (i % 2 == 1) {
        snap.abort(store, "timeout");
        failed.add(snap.id);
      } else {
        snap.store(store);
        complete.add(snap.id);
      }
    }
    store.setPinned(complete.get(0), true);
    SnapshotFixture open = new SnapshotFixture(store.allocateSnapshotId(), 10, 8);
    store.createPending(open.pending());
    open.writePieces(store);

    List<Long> deleted = store.applyRetention(1);

    assertThat(deleted).containsExactlyInAnyOrder(complete.get(1), failed.get(0), failed.get(1));
    assertThat(store.list(Set.of()))
        .extracting(SnapshotManifest::getSnapshotId)
        .containsExactly(open.id, failed.get(2), complete.get(2), complete.get(0));
    assertThat(bed.objects(where, complete.get(1))).isEmpty();
    assertThat(bed.objects(where, complete.get(2))).isNotEmpty();
    assertThat(bed.objects(where, open.id)).as("a pending snapshot keeps its pieces").isNotEmpty();
    assertThat(store.delete(complete.get(2))).isTrue();
    assertThat(store.delete(complete.get(2))).isFalse();
    assertThat(bed.objects(where, complete.get(2))).isEmpty();
    assertThatThrownBy(() -> store.delete(open.id)).isInstanceOf(NotPendingException.class);
    assertThat(store.sizeBytes()).isPositive();
  }

  @Test
  void withOneIdPerCatalogWriteNoIdIsSkippedAndNoneReusedUnderTheNextTerm() {
    S3SnapshotStore store = open();
    long c = store.allocateSnapshotId();
    store.close();
    S3SnapshotStore.Options single =
        new S3SnapshotStore.Options(1, HaTestbed.OPTIONS.partSize(), HaTestbed.OPTIONS.clock());
    S3SnapshotStore s = bed.open(where, bed.take(where), single);
    long d = s.allocateSnapshotId();
    assertThat(d).isGreaterThan(c);
    assertThat(s.allocateSnapshotId()).isEqualTo(d + 1);
    s.close();
    assertThat(bed.open(where, bed.take(where), single).allocateSnapshotId()).isGreaterThan(d + 1);
  }
}
