package io.cutpoint.server.testing;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.SnapshotStore;
import io.cutpoint.storage.StoreException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A store that keeps manifests in memory and records what the lifecycle did with them; pieces are
 * not kept. For the lifecycle's unit tests, which need no real store. Can be told to fail.
 */
public final class RecordingStore implements SnapshotStore {

  private final Map<Long, SnapshotManifest> manifests = new TreeMap<>();
  private final List<String> calls = new ArrayList<>();
  private long nextId = 1;
  public volatile boolean failCommits;
  public volatile boolean failPending;

  public synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  @Override
  public synchronized long allocateSnapshotId() {
    return nextId++;
  }

  @Override
  public long epoch() {
    return 0;
  }

  @Override
  public void beginRollback(long newEpoch, long snapshotId) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Optional<RollbackIntent> rollbackInProgress() {
    return Optional.empty();
  }

  @Override
  public void finishRollback(long epoch) {
    throw new UnsupportedOperationException();
  }

  @Override
  public synchronized void createPending(SnapshotManifest manifest) {
    if (failPending) {
      throw new StoreException("test store: pending manifest refused");
    }
    calls.add("pending " + manifest.getSnapshotId());
    manifests.put(manifest.getSnapshotId(), manifest);
  }

  @Override
  public void putStateChunk(long snapshotId, String workerId, int index, byte[] data, int crc32c) {}

  @Override
  public void putChannelRecording(
      long snapshotId, ChannelId channel, List<InTransitMessage> messages) {}

  @Override
  public void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta) {}

  @Override
  public synchronized void commit(SnapshotManifest complete) {
    if (failCommits) {
      throw new StoreException("test store: commit refused");
    }
    calls.add("commit " + complete.getSnapshotId());
    manifests.put(complete.getSnapshotId(), complete);
  }

  @Override
  public synchronized void finish(SnapshotManifest abortedOrFailed) {
    calls.add("finish " + abortedOrFailed.getSnapshotId() + " " + abortedOrFailed.getStatus());
    manifests.put(abortedOrFailed.getSnapshotId(), abortedOrFailed);
  }

  @Override
  public synchronized Optional<SnapshotManifest> manifest(long snapshotId) {
    return Optional.ofNullable(manifests.get(snapshotId));
  }

  @Override
  public synchronized List<SnapshotManifest> list(Set<SnapshotStatus> statuses) {
    return manifests.values().stream()
        .filter(m -> statuses.isEmpty() || statuses.contains(m.getStatus()))
        .sorted(Comparator.comparingLong(SnapshotManifest::getSnapshotId).reversed())
        .toList();
  }

  @Override
  public synchronized Optional<SnapshotManifest> latestComplete() {
    return list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)).stream().findFirst();
  }

  @Override
  public Optional<LocalSnapshotMeta> workerMeta(long snapshotId, String workerId) {
    return Optional.empty();
  }

  @Override
  public int readState(long snapshotId, String workerId, Consumer<byte[]> sink) {
    return 0;
  }

  @Override
  public List<InTransitMessage> readChannel(long snapshotId, ChannelId channel) {
    return List.of();
  }

  @Override
  public void verifyIntegrity(long snapshotId) {}

  @Override
  public synchronized SnapshotManifest setPinned(long snapshotId, boolean pinned) {
    SnapshotManifest m = manifests.get(snapshotId).toBuilder().setPinned(pinned).build();
    manifests.put(snapshotId, m);
    return m;
  }

  @Override
  public synchronized boolean delete(long snapshotId) {
    return manifests.remove(snapshotId) != null;
  }

  @Override
  public List<Long> applyRetention(int keepComplete) {
    return List.of();
  }

  @Override
  public long sizeBytes() {
    return 0;
  }

  @Override
  public void close() {}
}
