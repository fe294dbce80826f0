package io.cutpoint.storage;

/** The store failed; the message names the store and the operation. */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
