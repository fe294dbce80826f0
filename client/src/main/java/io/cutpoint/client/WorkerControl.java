package io.cutpoint.client;

import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.LocalSnapshot;
import java.util.Map;
import java.util.SortedSet;

/**
 * What a coordinator session needs from a worker: its identity and declarations, and the commands
 * of DESIGN section 4. {@code Worker} implements it; the session client drives it. Every method is
 * safe to call from any thread.
 */
public interface WorkerControl {

  /** The worker's stable id. */
  String workerId();

  /** host:port the worker's channel server actually listens on. */
  String channelAddress();

  /** Peers this worker sends to. */
  SortedSet<String> outgoing();

  /** Peers this worker receives from. */
  SortedSet<String> incoming();

  /** The epoch the worker runs in. */
  long epoch();

  /**
   * True while the worker's state is the application's initial state as far as any coordinator
   * knows: since the process started it has neither restored a snapshot nor been welcomed by a
   * coordinator ({@link #markJoined}). Sent as {@code Join.fresh}; a coordinator with the automatic
   * rollback policy rolls back when a worker a complete snapshot holds state for joins fresh. The
   * default, false, never asks for a rollback: implementations that wrap a {@link Worker} forward
   * it.
   */
  default boolean fresh() {
    return false;
  }

  /** A coordinator welcomed this worker: from now on {@link #fresh()} is false. */
  default void markJoined() {}

  /** New or changed channel addresses of peers. */
  void updatePeers(Map<String, String> addressesByWorkerId);

  /** Starts snapshot {@code snapshotId} as an initiator, in the current epoch. */
  void startSnapshot(long snapshotId);

  /** Drops whatever is recorded for {@code snapshotId}; unknown ids are ignored. */
  void abortSnapshot(long snapshotId);

  /**
   * A coordinator's welcome: drops the recordings of snapshots below {@code nextSnapshotId} (0: not
   * known, nothing is dropped) that are not in {@code pending}; no coordinator will end them.
   */
  void endUnknownSnapshots(long nextSnapshotId, java.util.Set<Long> pending);

  /**
   * Begins a rollback: stops sending (application sends wait), drops all recordings, and from now
   * on drops frames of epochs older than {@code newEpoch}.
   */
  void halt(long newEpoch);

  /**
   * Restores local state and counters from {@code piece} and queues its recorded messages on each
   * incoming channel ahead of any new traffic. The worker stays halted until {@link #resume}.
   */
  void restore(long epoch, LocalSnapshot piece, byte[] state);

  /** Ends a rollback: the worker runs again in {@code epoch}. */
  void resume(long epoch);

  /**
   * The worker's event loop, on which a coordinator session runs everything it does; null when the
   * worker has none, and the session then runs on a thread of its own. {@link Worker} returns its
   * loop: the session's commands then reach the engine without another hand-off, and {@link #halt},
   * {@link #restore} and {@link #resume} run inline. An implementation that returns a loop must not
   * wait for that loop inside any of these methods.
   */
  default WorkerLoop eventLoop() {
    return null;
  }

  /**
   * A builder of a channel to the coordinator at {@code target} ({@code host:port} or any gRPC
   * target) for a {@link io.cutpoint.client.session.CoordinatorSession} of this worker. {@link
   * Worker} runs the channel's I/O on its event loop, so that the session's messages reach the
   * loop, and its uploads leave it, without a hand-off between threads; the default is an ordinary
   * channel on gRPC's own threads. Whoever builds the channel closes it, after the session.
   */
  default io.grpc.ManagedChannelBuilder<?> coordinatorChannel(
      String target, io.grpc.ChannelCredentials credentials) {
    return io.grpc.Grpc.newChannelBuilder(target, credentials);
  }

  /**
   * Where this worker keeps its newest uploaded piece of state for local recovery ({@code
   * Worker.Builder.localRecovery}), or empty (the default): then every restore downloads.
   */
  default java.util.Optional<java.nio.file.Path> localRecovery() {
    return java.util.Optional.empty();
  }

  /** Where finished or failed local snapshots go (one listener; replaces the previous one). */
  void setSnapshotListener(LocalSnapshotListener listener);

  /** Receives local snapshot outcomes, on the worker's event thread: do not block in it. */
  interface LocalSnapshotListener {
    /**
     * This worker captured its state for {@code snapshotId}; exactly one of {@link #completed},
     * {@link #failed} or {@link #dropped} follows. The state does not change from here on (the
     * application's promise).
     */
    default void captured(long snapshotId, CapturedState state) {}

    /**
     * This worker stopped {@code snapshotId} on an order from outside (the coordinator aborted it,
     * a halt or a restore ended it): nothing more comes of it, and nothing is reported.
     */
    default void dropped(long snapshotId) {}

    void completed(CompletedLocalSnapshot snapshot);

    void failed(long snapshotId, String reason);
  }
}
