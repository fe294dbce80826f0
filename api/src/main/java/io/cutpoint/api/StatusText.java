package io.cutpoint.api;

import io.grpc.Status;
import java.util.Locale;

/**
 * A gRPC status as a person reads it: {@code cancelled (client cancelled)}, never {@code
 * Status{...}}.
 */
public final class StatusText {

  private StatusText() {}

  /** The code in lower case with spaces, and the description in parentheses when there is one. */
  public static String of(Status status) {
    String code = status.getCode().name().toLowerCase(Locale.ROOT).replace('_', ' ');
    String d = status.getDescription();
    return d == null || d.isBlank() ? code : code + " (" + d.strip() + ")";
  }

  /** {@link #of(Status)} of the status a failure carries. */
  public static String of(Throwable t) {
    return of(Status.fromThrowable(t));
  }
}
