package io.cutpoint.client;

import io.cutpoint.cut.LocalSnapshot;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;

/**
 * A {@link WorkerControl} that passes every call to another one. Extend it to observe or adjust a
 * few calls (say, to record every restore) and override only those: every other call, including
 * ones added to {@link WorkerControl} later, still reaches the worker. (A wrapper that forgot to
 * pass {@link #fresh()} on would silently hide a restarted worker from the coordinator.)
 *
 * <p>The one call not passed on is {@link #eventLoop()}: a wrapper's overrides may wait for the
 * worker's event thread (say, to read the state after a restore), which they cannot do on that
 * thread, so by default its session runs on a thread of its own. A wrapper whose overrides never
 * wait for the worker may return {@code delegate().eventLoop()}.
 */
public abstract class ForwardingWorkerControl implements WorkerControl {

  private final WorkerControl delegate;

  protected ForwardingWorkerControl(WorkerControl delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The worker calls are passed to. */
  protected WorkerControl delegate() {
    return delegate;
  }

  @Override
  public String workerId() {
    return delegate.workerId();
  }

  @Override
  public String channelAddress() {
    return delegate.channelAddress();
  }

  @Override
  public SortedSet<String> outgoing() {
    return delegate.outgoing();
  }

  @Override
  public SortedSet<String> incoming() {
    return delegate.incoming();
  }

  @Override
  public long epoch() {
    return delegate.epoch();
  }

  @Override
  public boolean fresh() {
    return delegate.fresh();
  }

  @Override
  public void markJoined() {
    delegate.markJoined();
  }

  @Override
  public void updatePeers(Map<String, String> addresses) {
    delegate.updatePeers(addresses);
  }

  @Override
  public void startSnapshot(long snapshotId) {
    delegate.startSnapshot(snapshotId);
  }

  @Override
  public void abortSnapshot(long snapshotId) {
    delegate.abortSnapshot(snapshotId);
  }

  @Override
  public void endUnknownSnapshots(long nextSnapshotId, java.util.Set<Long> pending) {
    delegate.endUnknownSnapshots(nextSnapshotId, pending);
  }

  @Override
  public void halt(long newEpoch) {
    delegate.halt(newEpoch);
  }

  @Override
  public void restore(long epoch, LocalSnapshot piece, byte[] state) {
    delegate.restore(epoch, piece, state);
  }

  @Override
  public void resume(long epoch) {
    delegate.resume(epoch);
  }

  @Override
  public void setSnapshotListener(LocalSnapshotListener listener) {
    delegate.setSnapshotListener(listener);
  }

  /**
   * The worker's own: a channel on its event loop. The session still runs on a thread of its own
   * (see above); only the channel's I/O shares the worker's loop.
   */
  @Override
  public java.util.Optional<java.nio.file.Path> localRecovery() {
    return delegate.localRecovery();
  }

  @Override
  public io.grpc.ManagedChannelBuilder<?> coordinatorChannel(
      String target, io.grpc.ChannelCredentials credentials) {
    return delegate.coordinatorChannel(target, credentials);
  }
}
