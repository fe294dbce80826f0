package io.cutpoint.ha.node;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.ha.FencedException;
import io.cutpoint.storage.SnapshotStore;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The leader's store as its coordinator sees it: every call goes to the store of the leader term,
 * and the first {@link FencedException} (a newer leader took a term) tells {@code onFenced}, once,
 * before it reaches the coordinator. The coordinator itself knows nothing of terms.
 *
 * <p>It passes on every method of {@link SnapshotStore}, default methods included: a default left
 * to the interface would run in place of the store's own (FencedStoreTest checks).
 */
final class FencedStore implements SnapshotStore {
  private final SnapshotStore store;
  private final Consumer<FencedException> onFenced;
  private final AtomicBoolean told = new AtomicBoolean();

  FencedStore(SnapshotStore store, Consumer<FencedException> onFenced) {
    this.store = store;
    this.onFenced = onFenced;
  }

  private <T> T call(Supplier<T> body) {
    try {
      return body.get();
    } catch (FencedException e) {
      if (told.compareAndSet(false, true)) {
        onFenced.accept(e);
      }
      throw e;
    }
  }

  private void run(Runnable body) {
    call(
        () -> {
          body.run();
          return null;
        });
  }

  @Override
  public long allocateSnapshotId() {
    return call(store::allocateSnapshotId);
  }

  @Override
  public long epoch() {
    return call(store::epoch);
  }

  @Override
  public void beginRollback(long newEpoch, long snapshotId) {
    run(() -> store.beginRollback(newEpoch, snapshotId));
  }

  @Override
  public Optional<RollbackIntent> rollbackInProgress() {
    return call(store::rollbackInProgress);
  }

  @Override
  public void finishRollback(long epoch) {
    run(() -> store.finishRollback(epoch));
  }

  @Override
  public void createPending(SnapshotManifest manifest) {
    run(() -> store.createPending(manifest));
  }

  @Override
  public void putStateChunk(long snapshotId, String workerId, int index, byte[] data, int crc) {
    run(() -> store.putStateChunk(snapshotId, workerId, index, data, crc));
  }

  @Override
  public void putCheckedStateChunk(
      long snapshotId, String workerId, int index, byte[] data, int crc) {
    run(() -> store.putCheckedStateChunk(snapshotId, workerId, index, data, crc));
  }

  @Override
  public long contentChunks() {
    return call(() -> store.contentChunks());
  }

  @Override
  public boolean[] holdChunks(long snapshotId, List<com.google.protobuf.ByteString> sha256s) {
    return call(() -> store.holdChunks(snapshotId, sha256s));
  }

  @Override
  public void putContentChunk(
      long snapshotId,
      String workerId,
      int index,
      com.google.protobuf.ByteString sha256,
      byte[] data,
      int crc32c) {
    run(() -> store.putContentChunk(snapshotId, workerId, index, sha256, data, crc32c));
  }

  @Override
  public void putChannelRecording(
      long snapshotId, ChannelId channel, List<InTransitMessage> messages) {
    run(() -> store.putChannelRecording(snapshotId, channel, messages));
  }

  @Override
  public void syncPieces() {
    run(store::syncPieces);
  }

  @Override
  public void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta) {
    run(() -> store.putWorkerMeta(snapshotId, meta));
  }

  @Override
  public void discardPieces(long snapshotId, String workerId) {
    run(() -> store.discardPieces(snapshotId, workerId));
  }

  @Override
  public void commit(SnapshotManifest complete) {
    run(() -> store.commit(complete));
  }

  @Override
  public void finish(SnapshotManifest abortedOrFailed) {
    run(() -> store.finish(abortedOrFailed));
  }

  @Override
  public Optional<SnapshotManifest> manifest(long snapshotId) {
    return call(() -> store.manifest(snapshotId));
  }

  @Override
  public List<SnapshotManifest> list(Set<SnapshotStatus> statuses) {
    return call(() -> store.list(statuses));
  }

  @Override
  public Optional<SnapshotManifest> latestComplete() {
    return call(store::latestComplete);
  }

  @Override
  public Optional<LocalSnapshotMeta> workerMeta(long snapshotId, String workerId) {
    return call(() -> store.workerMeta(snapshotId, workerId));
  }

  @Override
  public int readState(long snapshotId, String workerId, Consumer<byte[]> sink) {
    return call(() -> store.readState(snapshotId, workerId, sink));
  }

  @Override
  public int readState(
      long snapshotId, String workerId, IntFunction<byte[]> arrays, StateChunks sink) {
    return call(() -> store.readState(snapshotId, workerId, arrays, sink));
  }

  @Override
  public List<InTransitMessage> readChannel(long snapshotId, ChannelId channel) {
    return call(() -> store.readChannel(snapshotId, channel));
  }

  @Override
  public SortedMap<ChannelId, List<InTransitMessage>> readChannels(
      long snapshotId, Collection<ChannelId> channels) {
    return call(() -> store.readChannels(snapshotId, channels));
  }

  @Override
  public void verifyIntegrity(long snapshotId) {
    run(() -> store.verifyIntegrity(snapshotId));
  }

  @Override
  public void verifyIntegrity(
      long snapshotId, Map<String, io.cutpoint.storage.HeldState> heldByWorkers) {
    run(() -> store.verifyIntegrity(snapshotId, heldByWorkers));
  }

  @Override
  public SnapshotManifest setPinned(long snapshotId, boolean pinned) {
    return call(() -> store.setPinned(snapshotId, pinned));
  }

  @Override
  public boolean delete(long snapshotId) {
    return call(() -> store.delete(snapshotId));
  }

  @Override
  public List<Long> applyRetention(int keepComplete) {
    return call(() -> store.applyRetention(keepComplete));
  }

  @Override
  public long sizeBytes() {
    return call(store::sizeBytes);
  }

  @Override
  public SortedMap<Long, String> damaged() {
    return store.damaged();
  }

  @Override
  public Optional<String> unavailable() {
    return store.unavailable();
  }

  @Override
  public boolean resume() {
    return call(store::resume);
  }

  @Override
  public void close() {
    store.close();
  }
}
