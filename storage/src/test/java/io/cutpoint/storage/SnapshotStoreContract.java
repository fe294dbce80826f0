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
import io.cutpoint.storage.SnapshotStore.RollbackIntent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What every {@link SnapshotStore} does, whatever holds its bytes: a complete snapshot reads back
 * exactly, also after a reopen; a commit refuses what does not match the stored pieces; a finished
 * or discarded snapshot's pieces are gone; ids, the epoch and a rollback's intent survive a reopen;
 * a closed store says so. {@code RocksSnapshotStoreTest} runs it on RocksDB, {@code
 * S3SnapshotStoreTest} on a real ZooKeeper and a real S3 API server, where a reopen is a new store
 * under a new leader term, as after a failover.
 */
abstract class SnapshotStoreContract {

  /** A store over this test's location: a new one, or the last one's after it was closed. */
  abstract SnapshotStore open();

  /**
   * Two snapshots of {@code stateBytes} per worker in chunks of {@code chunkSize}: the first
   * committed, the second PENDING with every piece written.
   */
  static SnapshotFixture[] committedAndPending(SnapshotStore store, int stateBytes, int chunkSize) {
    SnapshotFixture done = new SnapshotFixture(store.allocateSnapshotId(), stateBytes, chunkSize);
    done.store(store);
    SnapshotFixture pending =
        new SnapshotFixture(store.allocateSnapshotId(), stateBytes, chunkSize);
    store.createPending(pending.pending());
    pending.writePieces(store);
    return new SnapshotFixture[] {done, pending};
  }

  /**
   * Checks, below the store's API, whether the backend holds pieces of the snapshot (its objects in
   * the bucket); a backend that cannot be looked at while its store is open checks nothing here
   * (the contract's reads check the same through the store).
   */
  abstract void assertHeldBelowTheStore(long snapshotId, boolean held);

  @Test
  void completeSnapshotOfThreeWorkersReadsBackExactlyAlsoAfterReopen() {
    SnapshotStore store = open();
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
        .as("reading all channels at once gives what reading them one by one gives")
        .containsOnlyKeys(SnapshotFixture.CHANNELS)
        .allSatisfy((c, msgs) -> assertThat(msgs).isEqualTo(snap.recordings.get(c)));
    assertThatCode(() -> store.verifyIntegrity(snap.id)).doesNotThrowAnyException();
  }

  @Test
  void commitRefusesAnIncompleteSnapshotAndLeavesItPending() {
    SnapshotStore store = open();
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
    SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    // the caller verified b having sent 12 on b->c; the store holds b's metadata without it
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
    SnapshotStore store = open();
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
    SnapshotStore store = open();
    SnapshotFixture[] s = committedAndPending(store, 100, 64);
    SnapshotFixture first = s[0];
    SnapshotFixture second = s[1];
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
    SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    store.createPending(snap.pending());
    assertThatThrownBy(() -> store.putStateChunk(snap.id, "a", 0, new byte[] {1, 2}, 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("state chunk 0: CRC32C mismatch on arrival");
  }

  @Test
  void finishKeepsTheReasonAndDeletesThePieces() {
    SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    assertHeldBelowTheStore(snap.id, true);
    store.finish(
        snap.pending().toBuilder()
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_FAILED)
            .setReason("channel a->b: gap")
            .build());

    SnapshotManifest m = store.manifest(snap.id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_FAILED);
    assertThat(m.getReason()).isEqualTo("channel a->b: gap");
    assertHeldBelowTheStore(snap.id, false);
    assertThat(store.readState(snap.id, "a", chunk -> {})).isZero();
    assertThat(store.workerMeta(snap.id, "a")).isEmpty();
    assertThat(store.readChannel(snap.id, ChannelId.of("a", "b"))).isEmpty();
    assertThatThrownBy(() -> store.putStateChunk(snap.id, "a", 0, new byte[0], 0))
        .isInstanceOf(NotPendingException.class);
  }

  @Test
  void snapshotIdsIncreaseAndAreNeverReusedAcrossReopen() {
    SnapshotStore store = open();
    long a = store.allocateSnapshotId();
    long b = store.allocateSnapshotId();
    assertThat(b).isGreaterThan(a);
    store.close();
    SnapshotStore reopened = open();
    long c = reopened.allocateSnapshotId();
    assertThat(c).isGreaterThan(b);
    reopened.close();
  }

  @Test
  void epochAndRollbackIntentSurviveReopenUntilFinished() {
    SnapshotStore store = open();
    assertThat(store.epoch()).isZero();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    snap.store(store);
    store.beginRollback(3, snap.id);
    store.close();

    SnapshotStore reopened = open();
    assertThat(reopened.epoch()).isEqualTo(3);
    assertThat(reopened.rollbackInProgress()).contains(new RollbackIntent(3, snap.id));
    assertThatThrownBy(() -> reopened.delete(snap.id))
        .isInstanceOf(DeletionRefusedException.class)
        .hasMessageContaining("target of the rollback to epoch 3");
    assertThatThrownBy(() -> reopened.beginRollback(3, snap.id))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> reopened.finishRollback(2)).isInstanceOf(IllegalStateException.class);
    reopened.finishRollback(3);
    reopened.finishRollback(3); // a restart that redoes the end finds it done
    reopened.close();

    SnapshotStore third = open();
    assertThat(third.epoch()).isEqualTo(3);
    assertThat(third.rollbackInProgress()).isEmpty();
  }

  @Test
  void rollbackNeedsACompleteTarget() {
    SnapshotStore store = open();
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
    SnapshotStore store = open();
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
    SnapshotStore store = open();
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 10, 8);
      ids.add(snap.id);
      if (i == 2) {
        snap.abort(store, "timeout");
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
    SnapshotStore store = open();
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
    SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    ChannelId intoC = ChannelId.of("b", "c");
    List<InTransitMessage> all = snap.recordings.get(intoC);
    // A first, broken attempt of c stored a stray chunk and batches split differently.
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

  /** An operator's pin decides under the store's lock: a deletion checked before it cannot win. */
  @Test
  void aPinnedSnapshotIsNotDeletedUntilUnpinned() {
    SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    snap.store(store);
    store.setPinned(snap.id, true);

    assertThatThrownBy(() -> store.delete(snap.id))
        .isInstanceOf(DeletionRefusedException.class)
        .hasMessage("snapshot " + snap.id + " is pinned; unpin it first");
    assertThat(store.manifest(snap.id)).isPresent();
    assertThat(snap.readState(store, "a")).isEqualTo(snap.states.get("a"));

    store.setPinned(snap.id, false);
    assertThat(store.delete(snap.id)).isTrue();
    store.close();
  }

  /**
   * A reader that looked a snapshot up, then reads it after its deletion (retention, an operator),
   * learns that it is gone: not an empty state or channel, which an analysis or a restore would
   * take for the snapshot's content.
   */
  @Test
  void readsOfADeletedSnapshotSayItIsGone() {
    SnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 300, 64);
    snap.store(store);
    ChannelId channel = snap.recordings.keySet().iterator().next();
    assertThat(store.readChannel(snap.id, channel)).isNotEmpty();
    store.delete(snap.id);

    assertThatThrownBy(() -> store.readState(snap.id, "a", data -> {}))
        .isInstanceOf(NoSuchSnapshotException.class);
    assertThatThrownBy(() -> store.readChannel(snap.id, channel))
        .isInstanceOf(NoSuchSnapshotException.class);
    assertThatThrownBy(() -> store.readChannels(snap.id, List.of(channel)))
        .isInstanceOf(NoSuchSnapshotException.class);
    assertThat(store.damaged()).isEmpty();
    store.close();
  }
}
