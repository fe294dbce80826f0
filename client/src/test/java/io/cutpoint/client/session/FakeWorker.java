package io.cutpoint.client.session;

import io.cutpoint.client.WorkerControl;
import io.cutpoint.cut.LocalSnapshot;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** A WorkerControl that records every command it gets, in order, as short strings. */
final class FakeWorker implements WorkerControl {

  record RestoreCall(long epoch, LocalSnapshot piece, byte[] state) {}

  final List<String> calls = new CopyOnWriteArrayList<>();
  final List<RestoreCall> restores = new CopyOnWriteArrayList<>();
  final Map<String, String> peers = new java.util.concurrent.ConcurrentHashMap<>();
  final AtomicLong epoch = new AtomicLong();

  /** Like a Worker: fresh until the first welcome or restore. */
  volatile boolean fresh = true;

  /** What the next restore throws, as an application's restore may; null: it restores. */
  volatile Throwable restoreThrows;

  private final String id;
  private final SortedSet<String> outgoing;
  private final SortedSet<String> incoming;
  private volatile LocalSnapshotListener listener;

  FakeWorker(String id, List<String> outgoing, List<String> incoming) {
    this.id = id;
    this.outgoing = new TreeSet<>(outgoing);
    this.incoming = new TreeSet<>(incoming);
  }

  LocalSnapshotListener listener() {
    return listener;
  }

  @Override
  public String workerId() {
    return id;
  }

  @Override
  public String channelAddress() {
    return "127.0.0.1:7001";
  }

  @Override
  public SortedSet<String> outgoing() {
    return outgoing;
  }

  @Override
  public SortedSet<String> incoming() {
    return incoming;
  }

  @Override
  public long epoch() {
    return epoch.get();
  }

  @Override
  public boolean fresh() {
    return fresh;
  }

  @Override
  public void markJoined() {
    fresh = false;
  }

  @Override
  public void updatePeers(Map<String, String> addressesByWorkerId) {
    peers.putAll(addressesByWorkerId);
    calls.add("updatePeers " + new TreeMap<>(addressesByWorkerId));
  }

  @Override
  public void startSnapshot(long snapshotId) {
    calls.add("startSnapshot " + snapshotId);
  }

  @Override
  public void abortSnapshot(long snapshotId) {
    calls.add("abortSnapshot " + snapshotId);
  }

  @Override
  public void endUnknownSnapshots(long nextSnapshotId, java.util.Set<Long> pending) {
    calls.add("endUnknownSnapshots " + nextSnapshotId + " " + new java.util.TreeSet<>(pending));
  }

  @Override
  public void halt(long newEpoch) {
    epoch.set(newEpoch);
    calls.add("halt " + newEpoch);
  }

  @Override
  public void restore(long epoch, LocalSnapshot piece, byte[] state) {
    Throwable t = restoreThrows;
    if (t != null) {
      restoreThrows = null;
      if (t instanceof Error e) {
        throw e;
      }
      throw (RuntimeException) t;
    }
    restores.add(new RestoreCall(epoch, piece, state));
    fresh = false;
    calls.add("restore " + epoch + " " + piece.snapshotId());
  }

  @Override
  public void resume(long newEpoch) {
    epoch.set(newEpoch);
    calls.add("resume " + newEpoch);
  }

  @Override
  public void setSnapshotListener(LocalSnapshotListener l) {
    listener = l;
    calls.add("setSnapshotListener");
  }
}
