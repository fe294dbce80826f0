package io.cutpoint.storage;

/** A stored piece failed its checksum or is missing: its data is never returned. */
public class CorruptionException extends StoreException {
  private static final long serialVersionUID = 1L;

  public CorruptionException(String message) {
    super(message);
  }

  public CorruptionException(String message, Throwable cause) {
    super(message, cause);
  }
}
