package io.cutpoint.ops.admin;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.Locale;

/** Turns a gRPC failure into one short line a person can act on. */
public final class GrpcErrors {

  private GrpcErrors() {}

  /**
   * @param e the failure
   * @param target the coordinator's address, as the user gave it
   * @param subject what the call was about, e.g. {@code snapshot 42} (empty if nothing)
   */
  public static String describe(StatusRuntimeException e, String target, String subject) {
    Status s = e.getStatus();
    String desc = s.getDescription() == null ? "" : s.getDescription().trim();
    String about =
        subject == null || subject.isEmpty() || desc.contains(subject) ? "" : subject + ": ";
    return switch (s.getCode()) {
      case UNAVAILABLE -> "cannot reach coordinator at " + target + ": " + unavailableReason(e);
      case DEADLINE_EXCEEDED ->
          "coordinator at "
              + target
              + " did not answer in time"
              + (desc.isEmpty() ? "" : " (" + desc + ")");
      case NOT_FOUND ->
          subject == null || subject.isEmpty()
              ? orElse(desc, "not found")
              : subject
                  + " not found"
                  + (desc.isEmpty() || desc.contains(subject) ? "" : " (" + desc + ")");
      case INVALID_ARGUMENT ->
          about + "rejected by the coordinator: " + orElse(desc, "invalid argument");
      case FAILED_PRECONDITION -> about + orElse(desc, "not possible in the current state");
      case ALREADY_EXISTS -> about + orElse(desc, "already exists");
      case DATA_LOSS -> about + "stored data is corrupt: " + orElse(desc, "checksum mismatch");
      case UNIMPLEMENTED ->
          "the coordinator at "
              + target
              + " does not support this operation"
              + (desc.isEmpty() ? "" : " (" + desc + ")");
      case UNAUTHENTICATED ->
          "not allowed: "
              + orElse(desc, "unauthenticated")
              + " (give the admin token with --token-file FILE or env CUTPOINT_ADMIN_TOKEN)";
      case PERMISSION_DENIED -> "not allowed: " + orElse(desc, s.getCode().name());
      case CANCELLED -> "call cancelled" + (desc.isEmpty() ? "" : ": " + desc);
      case RESOURCE_EXHAUSTED ->
          about + "coordinator out of resources: " + orElse(desc, "limit reached");
      default ->
          about
              + s.getCode().name().toLowerCase(Locale.ROOT).replace('_', ' ')
              + (desc.isEmpty() ? "" : ": " + desc);
    };
  }

  /**
   * For a plaintext call: {@code " (does it serve TLS? then give --tls-ca FILE)"} when the call
   * ended as a plaintext call to a TLS port does (UNAVAILABLE, the connection closed, no other
   * reason), else empty.
   */
  public static String plaintextHint(StatusRuntimeException e) {
    if (e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
      return "";
    }
    String reason = unavailableReason(e).toLowerCase(Locale.ROOT);
    boolean closed =
        reason.contains("io exception")
            || reason.contains("network closed")
            || reason.contains("connection reset")
            || reason.contains("first received frame")
            || reason.contains("http/2 error");
    return closed ? " (if the coordinator serves TLS, give its CA with --tls-ca FILE)" : "";
  }

  private static String unavailableReason(StatusRuntimeException e) {
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof ConnectException
          || containsIgnoreCase(t.getMessage(), "connection refused")) {
        return "connection refused";
      }
      if (t instanceof UnknownHostException) {
        return "unknown host";
      }
      if (t instanceof NoRouteToHostException) {
        return "no route to host";
      }
      if (t instanceof javax.net.ssl.SSLException ssl) {
        return "TLS handshake failed ("
            + orElse(innermostMessage(ssl), "no reason given")
            + "; check --tls-ca, and --tls-cert/--tls-key if it wants client certificates)";
      }
    }
    String desc = e.getStatus().getDescription();
    if (containsIgnoreCase(desc, "connection refused")) {
      return "connection refused";
    }
    return desc == null || desc.isBlank() ? "unavailable" : desc.trim();
  }

  private static String innermostMessage(Throwable t) {
    String m = null;
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isBlank()) {
        m = c.getMessage().trim();
      }
    }
    return m;
  }

  private static boolean containsIgnoreCase(String s, String part) {
    return s != null && s.toLowerCase(Locale.ROOT).contains(part);
  }

  private static String orElse(String s, String fallback) {
    return s == null || s.isEmpty() ? fallback : s;
  }
}
