package io.cutpoint.server.analysis;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.storage.CorruptionException;
import io.cutpoint.storage.SnapshotStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A {@link SnapshotStore} in a few maps, for tests of code that reads snapshots. Pieces can be
 * marked corrupt: reading them then throws {@link CorruptionException}, as a checksum mismatch
 * would. Counts channel reads so tests can tell what was read.
 */
public final class InMemorySnapshotStore implements SnapshotStore {

  private final Map<Long, SnapshotManifest> manifests = new TreeMap<>();
  private final Map<Long, Map<String, LocalSnapshotMeta>> metas = new TreeMap<>();
  private final Map<Long, Map<String, List<byte[]>>> states = new TreeMap<>();
  private final Map<Long, Map<ChannelId, List<InTransitMessage>>> channels = new TreeMap<>();
  private final Set<String> corrupt = new HashSet<>();
  final AtomicInteger channelReads = new AtomicInteger();
  private long nextId = 1;
  private long epoch;
  private RollbackIntent rollback;
  private boolean closed;

  /** Reading this worker's metadata will fail its checksum. */
  synchronized void corruptMeta(long snapshotId, String workerId) {
    corrupt.add("meta/" + snapshotId + "/" + workerId);
  }

  /** Reading this channel's recording will fail its checksum. */
  synchronized void corruptChannel(long snapshotId, ChannelId channel) {
    corrupt.add("channel/" + snapshotId + "/" + channel);
  }

  private void check(String key) {
    if (corrupt.contains(key)) {
      throw new CorruptionException("in-memory store: checksum mismatch reading " + key);
    }
  }

  private void open() {
    if (closed) {
      throw new IllegalStateException("in-memory store is closed");
    }
  }

  @Override
  public synchronized long allocateSnapshotId() {
    open();
    return nextId++;
  }

  @Override
  public synchronized long epoch() {
    return epoch;
  }

  @Override
  public synchronized void beginRollback(long newEpoch, long snapshotId) {
    epoch = newEpoch;
    rollback = new RollbackIntent(newEpoch, snapshotId);
  }

  @Override
  public synchronized Optional<RollbackIntent> rollbackInProgress() {
    return Optional.ofNullable(rollback);
  }

  @Override
  public synchronized void finishRollback(long epoch) {
    if (rollback != null && rollback.epoch() == epoch) {
      rollback = null;
    }
  }

  @Override
  public synchronized void createPending(SnapshotManifest manifest) {
    open();
    manifests.put(manifest.getSnapshotId(), manifest);
    nextId = Math.max(nextId, manifest.getSnapshotId() + 1);
  }

  @Override
  public synchronized void putStateChunk(
      long snapshotId, String workerId, int index, byte[] data, int crc32c) {
    List<byte[]> chunks =
        states
            .computeIfAbsent(snapshotId, k -> new TreeMap<>())
            .computeIfAbsent(workerId, k -> new ArrayList<>());
    while (chunks.size() <= index) {
      chunks.add(null);
    }
    chunks.set(index, data.clone());
  }

  @Override
  public synchronized void putChannelRecording(
      long snapshotId, ChannelId channel, List<InTransitMessage> messages) {
    channels
        .computeIfAbsent(snapshotId, k -> new TreeMap<>())
        .computeIfAbsent(channel, k -> new ArrayList<>())
        .addAll(messages);
  }

  @Override
  public synchronized void putWorkerMeta(long snapshotId, LocalSnapshotMeta meta) {
    metas.computeIfAbsent(snapshotId, k -> new TreeMap<>()).put(meta.getWorkerId(), meta);
  }

  @Override
  public synchronized void commit(SnapshotManifest complete) {
    SnapshotManifest pending = manifests.get(complete.getSnapshotId());
    if (pending == null || pending.getStatus() != SnapshotStatus.SNAPSHOT_STATUS_PENDING) {
      throw new IllegalStateException("snapshot " + complete.getSnapshotId() + " is not pending");
    }
    manifests.put(complete.getSnapshotId(), complete);
  }

  @Override
  public synchronized void finish(SnapshotManifest abortedOrFailed) {
    long id = abortedOrFailed.getSnapshotId();
    manifests.put(id, abortedOrFailed);
    metas.remove(id);
    states.remove(id);
    channels.remove(id);
  }

  @Override
  public synchronized Optional<SnapshotManifest> manifest(long snapshotId) {
    open();
    return Optional.ofNullable(manifests.get(snapshotId));
  }

  @Override
  public synchronized List<SnapshotManifest> list(Set<SnapshotStatus> statuses) {
    List<SnapshotManifest> out = new ArrayList<>();
    for (SnapshotManifest m : manifests.values()) {
      if (statuses.isEmpty() || statuses.contains(m.getStatus())) {
        out.add(m);
      }
    }
    out.sort(Comparator.comparingLong(SnapshotManifest::getSnapshotId).reversed());
    return out;
  }

  @Override
  public synchronized Optional<SnapshotManifest> latestComplete() {
    return list(Set.of(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)).stream().findFirst();
  }

  @Override
  public synchronized Optional<LocalSnapshotMeta> workerMeta(long snapshotId, String workerId) {
    open();
    check("meta/" + snapshotId + "/" + workerId);
    return Optional.ofNullable(metas.getOrDefault(snapshotId, Map.of()).get(workerId));
  }

  @Override
  public synchronized int readState(long snapshotId, String workerId, Consumer<byte[]> sink) {
    List<byte[]> chunks =
        states.getOrDefault(snapshotId, Map.of()).getOrDefault(workerId, List.of());
    for (byte[] chunk : chunks) {
      if (chunk == null) {
        throw new CorruptionException("in-memory store: missing chunk of " + workerId);
      }
      sink.accept(chunk.clone());
    }
    return chunks.size();
  }

  @Override
  public synchronized List<InTransitMessage> readChannel(long snapshotId, ChannelId channel) {
    open();
    channelReads.incrementAndGet();
    check("channel/" + snapshotId + "/" + channel);
    return List.copyOf(
        channels.getOrDefault(snapshotId, Map.of()).getOrDefault(channel, List.of()));
  }

  @Override
  public synchronized void verifyIntegrity(long snapshotId) {
    for (String key : corrupt) {
      if (key.contains("/" + snapshotId + "/")) {
        throw new CorruptionException("in-memory store: bad piece " + key);
      }
    }
  }

  @Override
  public synchronized SnapshotManifest setPinned(long snapshotId, boolean pinned) {
    SnapshotManifest m = manifests.get(snapshotId).toBuilder().setPinned(pinned).build();
    manifests.put(snapshotId, m);
    return m;
  }

  @Override
  public synchronized boolean delete(long snapshotId) {
    metas.remove(snapshotId);
    states.remove(snapshotId);
    channels.remove(snapshotId);
    return manifests.remove(snapshotId) != null;
  }

  @Override
  public synchronized List<Long> applyRetention(int keepComplete) {
    return List.of();
  }

  @Override
  public synchronized long sizeBytes() {
    return 0;
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
