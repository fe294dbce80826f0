package io.cutpoint.server.e2e;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.SnapshotStore;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A real store whose reads of one worker's state fail their checksum, as the RocksDB store's do
 * when the disk damaged a stored chunk.
 */
final class DamagedStore implements SnapshotStore {

  private final SnapshotStore d;
  private final String victim;

  DamagedStore(SnapshotStore delegate, String victim) {
    this.d = delegate;
    this.victim = victim;
  }

  @Override
  public void putStateChunk(long snapshotId, String workerId, int index, byte[] data, int crc32c) {
    d.putStateChunk(snapshotId, workerId, index, data, crc32c);
  }

  @Override
  public long contentChunks() {
    return d.contentChunks();
  }

  @Override
  public boolean[] holdChunks(long snapshotId, List<com.google.protobuf.ByteString> sha256s) {
    return d.holdChunks(snapshotId, sha256s);
  }

  @Override
  public void putContentChunk(
      long snapshotId,
      String workerId,
      int index,
      com.google.protobuf.ByteString sha256,
      byte[] data,
      int crc32c) {
    d.putContentChunk(snapshotId, workerId, index, sha256, data, crc32c);
  }

  private void damaged(String workerId) {
    if (workerId.equals(victim)) {
      throw new io.cutpoint.storage.CorruptionException(
          "worker " + workerId + ", state chunk 0: CRC32C mismatch");
    }
  }

  @Override
  public long allocateSnapshotId() {
    return d.allocateSnapshotId();
  }

  @Override
  public long epoch() {
    return d.epoch();
  }

  @Override
  public void beginRollback(long newEpoch, long snapshotId) {
    d.beginRollback(newEpoch, snapshotId);
  }

  @Override
  public Optional<RollbackIntent> rollbackInProgress() {
    return d.rollbackInProgress();
  }

  @Override
  public void finishRollback(long epoch) {
    d.finishRollback(epoch);
  }

  @Override
  public void createPending(SnapshotManifest manifest) {
    d.createPending(manifest);
  }

  @Override
  public void putChannelRecording(long id, ChannelId c, List<InTransitMessage> m) {
    d.putChannelRecording(id, c, m);
  }

  @Override
  public void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta) {
    d.putWorkerMeta(snapshotId, meta);
  }

  @Override
  public void commit(SnapshotManifest complete) {
    d.commit(complete);
  }

  @Override
  public void finish(SnapshotManifest m) {
    d.finish(m);
  }

  @Override
  public Optional<SnapshotManifest> manifest(long snapshotId) {
    return d.manifest(snapshotId);
  }

  @Override
  public List<SnapshotManifest> list(Set<SnapshotStatus> statuses) {
    return d.list(statuses);
  }

  @Override
  public Optional<SnapshotManifest> latestComplete() {
    return d.latestComplete();
  }

  @Override
  public Optional<LocalSnapshotMeta> workerMeta(long id, String w) {
    return d.workerMeta(id, w);
  }

  @Override
  public int readState(long id, String w, Consumer<byte[]> sink) {
    damaged(w);
    return d.readState(id, w, sink);
  }

  @Override
  public List<InTransitMessage> readChannel(long id, ChannelId c) {
    return d.readChannel(id, c);
  }

  @Override
  public void verifyIntegrity(long snapshotId) {
    damaged(victim);
    d.verifyIntegrity(snapshotId);
  }

  @Override
  public SnapshotManifest setPinned(long snapshotId, boolean pinned) {
    return d.setPinned(snapshotId, pinned);
  }

  @Override
  public boolean delete(long snapshotId) {
    return d.delete(snapshotId);
  }

  @Override
  public List<Long> applyRetention(int keepComplete) {
    return d.applyRetention(keepComplete);
  }

  @Override
  public long sizeBytes() {
    return d.sizeBytes();
  }

  @Override
  public void discardPieces(long snapshotId, String workerId) {
    d.discardPieces(snapshotId, workerId);
  }

  @Override
  public void close() {
    d.close();
  }
}
