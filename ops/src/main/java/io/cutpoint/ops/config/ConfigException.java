package io.cutpoint.ops.config;

/**
 * A setting that cannot be used: unknown key, bad value, unreadable file. The message is one line.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
