package io.cutpoint.storage;

import io.cutpoint.api.v1.SnapshotStatus;

/**
 * The operation needs a PENDING snapshot (or one that is not pending) and the snapshot is in
 * another state: a late piece of an aborted snapshot, a second commit, deleting a snapshot that is
 * still being written. Normal in a distributed system; the caller decides whether it matters.
 */
public class NotPendingException extends StoreException {
  private static final long serialVersionUID = 1L;
  private final transient SnapshotStatus status;

  public NotPendingException(long snapshotId, SnapshotStatus status, String operation) {
    super(operation + ": snapshot " + snapshotId + " is " + name(status));
    this.status = status;
  }

  /** The status the snapshot has. */
  public SnapshotStatus status() {
    return status;
  }

  private static String name(SnapshotStatus status) {
    return status.name().replace("SNAPSHOT_STATUS_", "");
  }
}
