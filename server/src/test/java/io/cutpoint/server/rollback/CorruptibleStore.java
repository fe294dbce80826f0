package io.cutpoint.server.rollback;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.HeldState;
import io.cutpoint.storage.SnapshotStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A real store whose chosen snapshots read as damaged: every read of their state fails its
 * checksum, as {@code RocksSnapshotStore} does when a stored value's CRC does not match.
 */
final class CorruptibleStore implements SnapshotStore {

  private final SnapshotStore store;
  private final Set<Long> corrupt = ConcurrentHashMap.newKeySet();
  private final List<Verified> verified = new java.util.concurrent.CopyOnWriteArrayList<>();

  CorruptibleStore(SnapshotStore store) {
    this.store = store;
  }

  /** From now on every state read of {@code snapshotId} fails its checksum. */
  void corrupt(long snapshotId) {
    corrupt.add(snapshotId);
  }

  private void check(long snapshotId, String what) {
    if (corrupt.contains(snapshotId)) {
      throw new CorruptionException("snapshot " + snapshotId + ", " + what + ": CRC32C mismatch");
    }
  }

  @Override
  public long allocateSnapshotId() {
    return store.allocateSnapshotId();
  }

  @Override
  public long epoch() {
    return store.epoch();
  }

  @Override
  public void beginRollback(long newEpoch, long snapshotId) {
    store.beginRollback(newEpoch, snapshotId);
  }

  @Override
  public Optional<RollbackIntent> rollbackInProgress() {
    return store.rollbackInProgress();
  }

  @Override
  public void finishRollback(long epoch) {
    store.finishRollback(epoch);
  }

  @Override
  public void createPending(SnapshotManifest m) {
    store.createPending(m);
  }

  @Override
  public void putStateChunk(long snapshotId, String workerId, int index, byte[] data, int crc32c) {
    store.putStateChunk(snapshotId, workerId, index, data, crc32c);
  }

  @Override
  public long contentChunks() {
    return store.contentChunks();
  }

  @Override
  public boolean[] holdChunks(long snapshotId, List<com.google.protobuf.ByteString> sha256s) {
    return store.holdChunks(snapshotId, sha256s);
  }

  @Override
  public void putContentChunk(
      long snapshotId,
      String workerId,
      int index,
      com.google.protobuf.ByteString sha256,
      byte[] data,
      int crc32c) {
    store.putContentChunk(snapshotId, workerId, index, sha256, data, crc32c);
  }

  @Override
  public void putChannelRecording(
      long snapshotId, ChannelId channel, List<InTransitMessage> messages) {
    store.putChannelRecording(snapshotId, channel, messages);
  }

  @Override
  public void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta) {
    store.putWorkerMeta(snapshotId, meta);
  }

  @Override
  public void commit(SnapshotManifest complete) {
    store.commit(complete);
  }

  @Override
  public void finish(SnapshotManifest m) {
    store.finish(m);
  }

  @Override
  public Optional<SnapshotManifest> manifest(long snapshotId) {
    return store.manifest(snapshotId);
  }

  @Override
  public List<SnapshotManifest> list(Set<SnapshotStatus> statuses) {
    return store.list(statuses);
  }

  @Override
  public Optional<SnapshotManifest> latestComplete() {
    return store.latestComplete();
  }

  @Override
  public Optional<LocalSnapshotMeta> workerMeta(long snapshotId, String workerId) {
    return store.workerMeta(snapshotId, workerId);
  }

  @Override
  public int readState(long snapshotId, String workerId, Consumer<byte[]> sink) {
    check(snapshotId, "worker " + workerId + ", state chunk 0");
    return store.readState(snapshotId, workerId, sink);
  }

  @Override
  public List<InTransitMessage> readChannel(long snapshotId, ChannelId channel) {
    return store.readChannel(snapshotId, channel);
  }

  @Override
  public void verifyIntegrity(long snapshotId) {
    verifyIntegrity(snapshotId, Map.of());
  }

  /** Records which states the caller said their workers hold, then verifies as the store does. */
  @Override
  public void verifyIntegrity(long snapshotId, Map<String, HeldState> heldByWorkers) {
    verified.add(new Verified(snapshotId, Map.copyOf(heldByWorkers)));
    check(snapshotId, "state chunk 0");
    store.verifyIntegrity(snapshotId, heldByWorkers);
  }

  /** One call of {@link #verifyIntegrity(long, Map)}. */
  record Verified(long snapshotId, Map<String, HeldState> held) {}

  /** Every verification asked for, oldest first. */
  List<Verified> verified() {
    return List.copyOf(verified);
  }

  @Override
  public SnapshotManifest setPinned(long snapshotId, boolean pinned) {
    return store.setPinned(snapshotId, pinned);
  }

  @Override
  public boolean delete(long snapshotId) {
    return store.delete(snapshotId);
  }

  @Override
  public List<Long> applyRetention(int keepComplete) {
    return store.applyRetention(keepComplete);
  }

  @Override
  public long sizeBytes() {
    return store.sizeBytes();
  }

  @Override
  public void close() {
    store.close();
  }
}
