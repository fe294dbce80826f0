package io.cutpoint.client.session;

/** A downloaded snapshot piece failed a check (order, size or CRC32C); it must not be restored. */
public final class CorruptPieceException extends Exception {

  public CorruptPieceException(String message) {
    super(message);
  }
}
