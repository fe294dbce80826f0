package io.cutpoint.ops.http;

/** A request the HTTP API refuses before it reaches the Admin service: 400 with the message. */
public final class BadRequest extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BadRequest(String message) {
    super(message);
  }
}
