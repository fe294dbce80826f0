package io.cutpoint.client.session;

/** The coordinator refused a worker's {@code snapshot_request}; the message is its reason. */
public final class SnapshotRefusedException extends Exception {

  private final long requestId;

  public SnapshotRefusedException(long requestId, String reason) {
    super(reason == null || reason.isEmpty() ? "snapshot request refused" : reason);
    this.requestId = requestId;
  }

  /** The {@code request_id} that was refused. */
  public long requestId() {
    return requestId;
  }
}
