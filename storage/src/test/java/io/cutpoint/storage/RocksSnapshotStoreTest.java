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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksSnapshotStoreTest {
  static final RocksSnapshotStore.Options FAST =
      RocksSnapshotStore.Options.DEFAULT.withSyncWrites(false);

  @TempDir Path dir;
  private final List<RocksSnapshotStore> opened = new ArrayList<>();

  @AfterEach
  void closeStores() {
    opened.forEach(RocksSnapshotStore::close);
  }

  private RocksSnapshotStore open() {
    RocksSnapshotStore store = RocksSnapshotStore.open(dir, FAST);
    opened.add(store);
    return store;
  }

  @Test
  void completeSnapshotOfThreeWorkersReadsBackExactlyAlsoAfterReopen() {
    RocksSnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    snap.store(store);
    assertReadsBack(store, snap);
    store.close();
    assertReadsBack(open(), snap);
  }

  private static void assertReadsBack(SnapshotStore store, SnapshotFixture snap) {
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
    RocksSnapshotStore store = open();
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
    RocksSnapshotStore store = open();
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
    RocksSnapshotStore store = open();
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
    RocksSnapshotStore store = open();
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
  }

  @Test
  void aChunkWhoseCrcDoesNotMatchOnArrivalIsRefused() {
    RocksSnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    store.createPending(snap.pending());
    assertThatThrownBy(() -> store.putStateChunk(snap.id, "a", 0, new byte[] {1, 2}, 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("state chunk 0: CRC32C mismatch on arrival");
  }

  @Test
  void finishKeepsTheReasonAndDeletesThePieces() {
    RocksSnapshotStore store = open();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(snap.pending());
    snap.writePieces(store);
    store.finish(
        snap.pending().toBuilder()
            .setStatus(SnapshotStatus.SNAPSHOT_STATUS_FAILED)
            .setReason("channel a->b: gap")
            .build());

    SnapshotManifest m = store.manifest(snap.id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_FAILED);
    assertThat(m.getReason()).isEqualTo("channel a->b: gap");
    assertThat(store.readState(snap.id, "a", chunk -> {})).isZero();
    assertThat(store.workerMeta(snap.id, "a")).isEmpty();
    assertThat(store.readChannel(snap.id, ChannelId.of("a", "b"))).isEmpty();
    assertThatThrownBy(() -> store.putStateChunk(snap.id, "a", 0, new byte[0], 0))
        .isInstanceOf(NotPendingException.class);
  }

  @Test
  void pendingLeftoversAreAbortedWithTheirPiecesDeletedOnReopen() throws Exception {
    RocksSnapshotStore store = open();
    SnapshotFixture done = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    done.store(store);
    SnapshotFixture left = new SnapshotFixture(store.allocateSnapshotId(), 3000, 1024);
    store.createPending(left.pending());
    left.writePieces(store);
    store.close();
    try (RawDb raw = new RawDb(dir)) {
      assertThat(raw.keys("state_chunks", left.id)).isNotEmpty();
    }

    RocksSnapshotStore reopened = open();
    assertThat(reopened.abortedOnOpen()).containsExactly(left.id);
    SnapshotManifest m = reopened.manifest(left.id).orElseThrow();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_ABORTED);
    assertThat(m.getReason()).isEqualTo("coordinator restarted");
    assertThat(reopened.list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_PENDING))).isEmpty();
    assertReadsBack(reopened, done);
    reopened.close();
    try (RawDb raw = new RawDb(dir)) {
      for (String family : List.of("state_chunks", "channel_states", "worker_meta")) {
        assertThat(raw.keys(family, left.id)).as(family).isEmpty();
        assertThat(raw.keys(family, done.id)).as(family).isNotEmpty();
      }
    }
  }

  @Test
  void openingCreatesEveryColumnFamilyAndKeepsUnknownOnes() throws Exception {
    open().close();
    try (RawDb raw = new RawDb(dir)) {
      assertThat(raw.families())
          .contains(
              "default", "manifests", "state_chunks", "channel_states", "worker_meta", "metadata");
    }
  }

  @Test
  void snapshotIdsIncreaseAndAreNeverReusedAcrossReopen() {
    RocksSnapshotStore store = open();
    long a = store.allocateSnapshotId();
    long b = store.allocateSnapshotId();
    assertThat(b).isGreaterThan(a);
    store.close();
    RocksSnapshotStore reopened = open();
    long c = reopened.allocateSnapshotId();
    assertThat(c).isGreaterThan(b);
    reopened.close();
    // With one id per synced write, no id is skipped at all.
    RocksSnapshotStore.Options single = new RocksSnapshotStore.Options(false, 1, FAST.clock());
    try (RocksSnapshotStore s = RocksSnapshotStore.open(dir, single)) {
      long d = s.allocateSnapshotId();
      assertThat(d).isGreaterThan(c);
      assertThat(s.allocateSnapshotId()).isEqualTo(d + 1);
    }
    try (RocksSnapshotStore s = RocksSnapshotStore.open(dir, single)) {
      assertThat(s.allocateSnapshotId()).isGreaterThan(c + 1);
    }
  }

  @Test
  void epochAndRollbackIntentSurviveReopenUntilFinished() {
    RocksSnapshotStore store = open();
    assertThat(store.epoch()).isZero();
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    snap.store(store);
    store.beginRollback(3, snap.id);
    store.close();

    RocksSnapshotStore reopened = open();
    assertThat(reopened.epoch()).isEqualTo(3);
    assertThat(reopened.rollbackInProgress()).contains(new RollbackIntent(3, snap.id));
    assertThatThrownBy(() -> reopened.delete(snap.id))
        .hasMessageContaining("target of the rollback to epoch 3");
    assertThatThrownBy(() -> reopened.beginRollback(3, snap.id))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> reopened.finishRollback(2)).isInstanceOf(IllegalStateException.class);
    reopened.finishRollback(3);
    reopened.close();

    RocksSnapshotStore third = open();
    assertThat(third.epoch()).isEqualTo(3);
    assertThat(third.rollbackInProgress()).isEmpty();
  }

  @Test
  void rollbackNeedsACompleteTarget() {
    RocksSnapshotStore store = open();
    assertThatThrownBy(() -> store.beginRollback(1, 42))
        .isInstanceOf(NoSuchSnapshotException.class);
    SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 100, 64);
    store.createPending(snap.pending());
    assertThatThrownBy(() -> store.beginRollback(1, snap.id))
        .isInstanceOf(NotPendingException.class);
    assertThat(store.epoch()).isZero();
  }

  @Test
  void aSecondOpenOfTheSameDirectoryGetsAClearError() {
    open();
    assertThatThrownBy(() -> RocksSnapshotStore.open(dir, FAST))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("data directory " + dir.toAbsolutePath())
        .hasMessageContaining("is in use by another process");
  }

  @Test
  void closeTwiceIsFineAndLaterCallsFailClearly() {
    RocksSnapshotStore store = open();
    store.close();
    store.close();
    assertThatThrownBy(store::allocateSnapshotId)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("is closed: cannot allocate snapshot id");
    assertThatThrownBy(() -> store.readState(1, "a", c -> {}))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("is closed");
    assertThatThrownBy(store::syncPieces)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("is closed: cannot sync the stored pieces");
    // The directory is free again.
    RocksSnapshotStore.open(dir, FAST).close();
  }

  @Test
  void listIsNewestFirstAndFiltersByStatus() {
    RocksSnapshotStore store = open();
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
    RocksSnapshotStore store = open();
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
    RocksSnapshotStore store = open();
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
}
