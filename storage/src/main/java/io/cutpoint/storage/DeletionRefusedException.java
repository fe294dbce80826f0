package io.cutpoint.storage;

/**
 * A snapshot that must stay was not deleted: it is pinned, or the target of the rollback in
 * progress. The store decides this under the lock its pins and rollbacks take, so a pin or a
 * rollback that went through before the deletion always wins.
 */
public class DeletionRefusedException extends StoreException {
  private static final long serialVersionUID = 1L;

  public DeletionRefusedException(String message) {
    super(message);
  }
}
