package io.cutpoint.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.api.v1.ChannelCounter;
import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.WorkerPiece;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.ha.S3SnapshotStore;
import io.cutpoint.storage.SnapshotStore.RollbackIntent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The cases of {@code RocksSnapshotStoreTest} and {@code RetentionTest}, run against {@link
 * S3SnapshotStore} on a real ZooKeeper and a real S3 API server. "Reopen" is a new store under a
 * new leader term, as after a failover.
 */
class S3SnapshotStoreTest {
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

  private S3SnapshotStore open() {
    return bed.open(where);
  }

  @Test
  void completeSnapshotOfThreeWorkersReadsBackExactlyAlsoAfterReopen() {
    S3SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    snap.store(store);
    assertReadsBack(store, snap);
    store.close();
    assertReadsBack(open(), snap);
  }

  static void assertReadsBack(SnapshotStore store, SnapshotFixture snap) {
    SnapshotManifest m = store.manifest(snap.id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    assertThat(m.getPiecesList())
        .extracting(WorkerPiece::getWorkerId)
        .containsExactly("a", "b", "c");
    long stateBytes = 0;
    for (String w : SnapshotFixture.WORKERS) {
      assertThat(snap.readState(store, w)).isEqualTo(snap.states.get(w));
      assertThat(store.workerMeta(snap.id, w)).contains(snap.meta(w));
      stateBytes += snap.states.get(w).length;
      WorkerPiece piece =
          m.getPiecesList().stream()
              .filter(p -> p.getWorkerId().equals(w))
              .findFirst()
              .orElseThrow();
      assertThat(piece.getStateChunks())
          .isEqualTo((snap.states.get(w).length + snap.chunkSize - 1) / snap.chunkSize);
    }
    assertThat(m.getTotalStateBytes()).isEqualTo(stateBytes);
    long messages = 0;
    for (ChannelId c : SnapshotFixture.CHANNELS) {
      assertThat(store.readChannel(snap.id, c)).isEqualTo(snap.recordings.get(c));
      messages += snap.recordings.get(c).size();
    }
    assertThat(m.getInFlightMessages()).isEqualTo(messages);
    assertThat(store.readChannels(snap.id, SnapshotFixture.CHANNELS))
        .containsOnlyKeys(SnapshotFixture.CHANNELS)
        .allSatisfy((c, msgs) -> assertThat(msgs).isEqualTo(snap.recordings.get(c)));
    assertThatCode(() -> store.verifyIntegrity(snap.id)).doesNotThrowAnyException();
  }

  @Test
  void commitRefusesAnIncompleteSnapshotAndLeavesItPending() {
    S3SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    store.putStateChunk(snap.id, "a", 9, new byte[] {1}, SnapshotFixture.crc(new byte[] {1}));

    assertThatThrownBy(() -> store.commit(snap.complete()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("snapshot " + snap.id)
        .hasMessageContaining("worker a")
        .hasMessageContaining("chunks missing");
    assertThat(store.manifest(snap.id).orElseThrow().getStatus())
        .isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_PENDING);
    assertThat(store.latestComplete()).isEmpty();
  }

  @Test
  void commitRefusesCountersThatAreNotTheOnesStored() {
    S3SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    LocalSnapshotMeta verified =
        snap.meta("b").toBuilder()
            .addSent(ChannelCounter.newBuilder().setPeer("c").setCount(12))
            .build();
    SnapshotManifest declaring =
        snap.complete().toBuilder()
            .addPieces(WorkerPiece.newBuilder().setWorkerId("b").setMeta(verified))
            .build();

    assertThatThrownBy(() -> store.commit(declaring))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("counters of worker b that were verified are not the ones stored");
    assertThat(store.latestComplete()).isEmpty();
    store.putWorkerMeta(snap.id, verified);
    store.commit(declaring);
    assertThat(store.workerMeta(snap.id, "b")).contains(verified);
  }

  @Test
  void commitRefusesMetadataWhoseStateSizeOrCrcDoesNotMatchTheChunks() {
    S3SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    store.putWorkerMeta(snap.id, snap.meta("b").toBuilder().setStateCrc32C(12345).build());
    assertThatThrownBy(() -> store.commit(snap.complete()))
        .hasMessageContaining("worker b declared state CRC32C");
    store.putWorkerMeta(snap.id, snap.meta("b").toBuilder().setStateBytes(1).build());
    assertThatThrownBy(() -> store.commit(snap.complete()))
        .hasMessageContaining("worker b declared 1 state bytes");
    store.putWorkerMeta(snap.id, snap.meta("b"));
    store.commit(snap.complete());
    assertThat(store.latestComplete().orElseThrow().getSnapshotId()).isEqualTo(snap.id);
  }

  @Test
  void piecesBeforeCommitAreInvisibleAsCompleteAndLatePiecesAreRefused() {
    S3SnapshotStore store = open();
    SnapshotFixture first = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    first.store(store);
    SnapshotFixture second = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    store.createPending(second.pending());
    second.writePieces(store);
    assertThat(store.latestComplete().orElseThrow().getSnapshotId()).isEqualTo(first.id);
    store.commit(second.complete());
    assertThat(store.latestComplete().orElseThrow().getSnapshotId()).isEqualTo(second.id);

    assertThatThrownBy(() -> store.putStateChunk(second.id, "a", 99, new byte[0], 0))
        .isInstanceOf(NotPendingException.class)
        .hasMessageContaining("snapshot " + second.id + " is COMPLETE");
    assertThatThrownBy(() -> store.commit(second.complete()))
        .isInstanceOf(NotPendingException.class);
    assertThatThrownBy(
            () -> store.putWorkerMeta(777, first.meta("a").toBuilder().setSnapshotId(777).build()))
        .isInstanceOf(NoSuchSnapshotException.class);
    assertThatThrownBy(() -> store.createPending(first.pending()))
        .isInstanceOf(NotPendingException.class)
        .hasMessageContaining("is COMPLETE");
  }

  @Test
  void aChunkWhoseCrcDoesNotMatchOnArrivalIsRefused() {
    S3SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    store.createPending(snap.pending());
    assertThatThrownBy(() -> store.putStateChunk(snap.id, "a", 0, new byte[] {1, 2}, 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("state chunk 0: CRC32C mismatch on arrival");
  }

  @Test
  void finishKeepsTheReasonAndDeletesThePieces() {
    S3SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    assertThat(bed.objects(where, snap.id)).isNotEmpty();
    store.finish(
        snap.pending().toBuilder()
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_FAILED)
            .setReason("channel a->b: gap")
            .build());

    SnapshotManifest m = store.manifest(snap.id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_FAILED);
    assertThat(m.getReason()).isEqualTo("channel a->b: gap");
    assertThat(bed.objects(where, snap.id)).isEmpty();
    assertThat(store.readState(snap.id, "a", chunk -> {})).isZero();
    assertThat(store.workerMeta(snap.id, "a")).isEmpty();
    assertThat(store.readChannel(snap.id, ChannelId.of("a", "b"))).isEmpty();
    assertThatThrownBy(() -> store.putStateChunk(snap.id, "a", 0, new byte[0], 0))
        .isInstanceOf(NotPendingException.class);
  }

  /** A committed snapshot and one left PENDING with all its pieces, by a store now closed. */
  private SnapshotFixture[] committedAndLeftPending() {
    S3SnapshotStore store = open();
    SnapshotFixture done = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    done.store(store);
    SnapshotFixture left = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(left.pending());
    left.writePieces(store);
    store.close();
    assertThat(bed.objects(where, left.id)).isNotEmpty();
    return new SnapshotFixture[] {done, left};
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
  void snapshotIdsIncreaseAndAreNeverReusedAcrossReopen() {
    S3SnapshotStore store = open();
    long a = store.allocateSnapshotId();
    long b = store.allocateSnapshotId();
    assertThat(b).isGreaterThan(a);
    store.close();
    S3SnapshotStore reopened = open();
    long c = reopened.allocateSnapshotId();
    assertThat(c).isGreaterThan(b);
    reopened.close();
    S3SnapshotStore.Options single =
        new S3SnapshotStore.Options(1, HaTestbed.OPTIONS.partSize(), HaTestbed.OPTIONS.clock());
    S3SnapshotStore s = bed.open(where, bed.take(where), single);
    long d = s.allocateSnapshotId();
    assertThat(d).isGreaterThan(c);
    assertThat(s.allocateSnapshotId()).isEqualTo(d + 1);
    s.close();
    assertThat(bed.open(where, bed.take(where), single).allocateSnapshotId()).isGreaterThan(d + 1);
  }

  @Test
  void epochAndRollbackIntentSurviveReopenUntilFinished() {
    S3SnapshotStore store = open();
    assertThat(store.epoch()).isZero();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    snap.store(store);
    store.beginRollback(3, snap.id);
    store.close();

    S3SnapshotStore reopened = open();
    assertThat(reopened.epoch()).isEqualTo(3);
    assertThat(reopened.rollbackInProgress()).contains(new RollbackIntent(3, snap.id));
    assertThatThrownBy(() -> reopened.delete(snap.id))
        .hasMessageContaining("target of the rollback to epoch 3");
    assertThatThrownBy(() -> reopened.beginRollback(3, snap.id))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> reopened.finishRollback(2)).isInstanceOf(IllegalStateException.class);
    reopened.finishRollback(3);
    reopened.finishRollback(3);
    reopened.close();

    S3SnapshotStore third = open();
    assertThat(third.epoch()).isEqualTo(3);
    assertThat(third.rollbackInProgress()).isEmpty();
  }

  @Test
  void rollbackNeedsACompleteTarget() {
    S3SnapshotStore store = open();
    assertThatThrownBy(() -> store.beginRollback(1, 42))
        .isInstanceOf(NoSuchSnapshotException.class);
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    store.createPending(snap.pending());
    assertThatThrownBy(() -> store.beginRollback(1, snap.id))
        .isInstanceOf(NotPendingException.class);
    assertThat(store.epoch()).isZero();
  }

  @Test
  void closeTwiceIsFineAndLaterCallsFailClearly() {
    S3SnapshotStore store = open();
    store.close();
    store.close();
    assertThatThrownBy(store::allocateSnapshotId)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("is closed: cannot allocate snapshot id");
    assertThatThrownBy(() -> store.readState(1, "a", c -> {}))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("is closed");
  }

  @Test
  void listIsNewestFirstAndFiltersByStatus() {
    S3SnapshotStore store = open();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 10, 8);
      ids.add(snap.id);
      if (i == 2) {
        store.createPending(snap.pending());
        store.finish(
            snap.pending().toBuilder()
                .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
                .setReason("timeout")
                .build());
      } else {
        snap.store(store);
      }
    }
    assertThat(store.list(Set.of()))
        .extracting(SnapshotManifest::getSnapshotId)
        .containsExactly(ids.get(3), ids.get(2), ids.get(1), ids.get(0));
    assertThat(store.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)))
        .extracting(SnapshotManifest::getSnapshotId)
        .containsExactly(ids.get(2));
    assertThat(store.setPinned(ids.get(0), true).getPinned()).isTrue();
    assertThat(store.manifest(ids.get(0)).orElseThrow().getPinned()).isTrue();
    assertThatThrownBy(() -> store.setPinned(999, true))
        .isInstanceOf(NoSuchSnapshotException.class);
  }

  @Test
  void channelBatchesMustBeInSequenceOrder() {
    S3SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 10, 8);
    store.createPending(snap.pending());
    List<InTransitMessage> backwards =
        List.of(new InTransitMessage(5, new byte[1]), new InTransitMessage(4, new byte[1]));
    assertThatThrownBy(() -> store.putChannelRecording(snap.id, ChannelId.of("a", "b"), backwards))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("message #4 after #5");
  }

  @Test
  void discardingAWorkersPiecesLetsARetriedUploadStartClean() {
    S3SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    ChannelId intoC = ChannelId.of("b", "c");
    List<InTransitMessage> all = snap.recordings.get(intoC);
    store.putStateChunk(snap.id, "c", 50, new byte[] {9}, SnapshotFixture.crc(new byte[] {9}));
    store.putChannelRecording(snap.id, intoC, all.subList(1, all.size()));
    assertThat(store.readChannel(snap.id, intoC)).hasSizeGreaterThan(all.size());

    store.discardPieces(snap.id, "c");
    assertThat(store.workerMeta(snap.id, "c")).isEmpty();
    assertThat(store.readState(snap.id, "c", chunk -> {})).isZero();
    assertThat(store.readChannel(snap.id, intoC)).isEmpty();
    assertThat(store.readChannel(snap.id, ChannelId.of("a", "b")))
        .isEqualTo(snap.recordings.get(ChannelId.of("a", "b")));

    snap.writeWorker(store, "c");
    store.putChannelRecording(snap.id, intoC, all);
    store.commit(snap.complete());
    assertReadsBack(store, snap);
    assertThatThrownBy(() -> store.discardPieces(snap.id, "c"))
        .isInstanceOf(NotPendingException.class);
  }

  @Test
  void retentionKeepsTheNewestCompletePlusPinnedAndABoundedHistoryAndRemovesTheObjects() {
    S3SnapshotStore store = open();
    List<Long> complete = new ArrayList<>();
    List<Long> failed = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 200, 64);
      if (i % 2 == 1) {
        store.createPending(snap.pending());
        store.finish(
            snap.pending().toBuilder()
                .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
                .setReason("timeout")
                .build());
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
}
