package io.cutpoint.storage;

/** The snapshot does not exist (never created, or deleted). */
public class NoSuchSnapshotException extends StoreException {
  private static final long serialVersionUID = 1L;

  public NoSuchSnapshotException(long snapshotId, String operation) {
    super(operation + ": no snapshot " + snapshotId);
  }
}
