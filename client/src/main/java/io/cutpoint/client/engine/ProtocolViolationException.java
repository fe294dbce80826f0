package io.cutpoint.client.engine;

/**
 * The transport broke a promise the engine relies on (reliable FIFO channels without gaps): a data
 * message whose sequence number is not the next one, or a marker whose sender's count disagrees
 * with what arrived before it. The engine's state is unchanged by the call that threw.
 */
public final class ProtocolViolationException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  public ProtocolViolationException(String message) {
    super(message);
  }
}
