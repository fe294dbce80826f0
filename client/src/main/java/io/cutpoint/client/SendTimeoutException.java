package io.cutpoint.client;

/**
 * {@link Worker#send} waited longer than the configured send timeout: the channel's buffer of
 * unacknowledged messages stayed full (a slow or unreachable receiver) or the worker stayed halted
 * for a rollback. The message was not sent and took no sequence number.
 */
public final class SendTimeoutException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public SendTimeoutException(String message) {
    super(message);
  }
}
