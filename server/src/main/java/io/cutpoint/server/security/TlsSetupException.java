package io.cutpoint.server.security;

import java.io.IOException;

/** The TLS files cannot be used; the message names the file and what is wrong. */
public final class TlsSetupException extends IOException {
  private static final long serialVersionUID = 1L;

  public TlsSetupException(String message, Throwable cause) {
    super(message, cause);
  }
}
