package io.cutpoint.client.engine;

/**
 * What a {@link SnapshotEngine} asks its caller to do. Every method is called synchronously from
 * inside an engine method, on the caller's thread, in a deterministic order; an implementation may
 * call {@link SnapshotEngine#send} from {@link #deliver} (an application answering a message), but
 * must not block.
 */
public interface EngineOutput {

  /**
   * Put a marker of {@code snapshotId} on the outgoing channel to {@code to}, before any data
   * message sent after this call. {@code sentCount} is the number of data messages sent on that
   * channel before the marker; the receiver passes it to {@link SnapshotEngine#onMarker}.
   */
  void sendMarker(String to, long snapshotId, long sentCount);

  /** Hand data message {@code seq} of the channel from {@code from} to the application. */
  void deliver(String from, long seq, byte[] payload);

  /**
   * This worker recorded its state for {@code snapshotId}, after the markers went out; exactly one
   * of {@link #completed} (once every incoming channel is closed), {@link #failed} or {@link
   * #dropped} follows. The application promised not to change the captured state, so it may be
   * prepared for the upload meanwhile (cut into chunks and hashed).
   */
  default void captured(long snapshotId, CapturedState state) {}

  /**
   * This worker stopped recording {@code snapshotId} without completing it, on an order from
   * outside: the coordinator aborted it, or a halt or a restore ended every snapshot in flight.
   * Nothing else follows; what was prepared for its upload can go. Not a failure of this worker, so
   * nothing is reported.
   */
  default void dropped(long snapshotId) {}

  /** This worker's piece of a snapshot is complete: report it to the coordinator. */
  void completed(CompletedLocalSnapshot snapshot);

  /**
   * This worker gave up on a snapshot (recording limit exceeded, state capture failed); its
   * recordings are dropped and later markers of it are ignored.
   */
  void failed(long snapshotId, String reason);
}
