package io.cutpoint.server.security;

import io.cutpoint.api.WorkerCertificates;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Optional;

/**
 * Who calls the worker-facing service. Installed on that service alone, it refuses a call without
 * the worker token (when one is configured) with UNAUTHENTICATED and, under mutual TLS, a call
 * whose client certificate names no worker with PERMISSION_DENIED. It puts in the call's context
 * the worker id the certificate names (SAN URI {@code cutpoint://worker/ID}) and the session secret
 * the call carries, which the handlers compare with what the call claims.
 */
public final class WorkerIdentity implements ServerInterceptor {

  /** The metadata key of the session secret (from the welcome) on uploads and downloads. */
  public static final Metadata.Key<String> SESSION_SECRET =
      Metadata.Key.of("cutpoint-session-secret", Metadata.ASCII_STRING_MARSHALLER);

  /** The scheme and path of a worker certificate's SAN URI, before the id. */
  public static final String SAN_PREFIX = WorkerCertificates.SAN_PREFIX;

  private static final Context.Key<java.util.SortedSet<String>> CERTIFIED =
      Context.key("cutpoint-certified-workers");
  private static final Context.Key<String> SECRET = Context.key("cutpoint-session-secret");

  private final AdminToken workerToken;
  private final boolean certificates;

  /**
   * @param workerToken the token workers must present; null = none
   * @param certificates true under mutual TLS: every caller must present a worker certificate
   */
  public WorkerIdentity(AdminToken workerToken, boolean certificates) {
    this.workerToken = workerToken;
    this.certificates = certificates;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    if (workerToken != null) {
      String value = headers.get(AdminTokenInterceptor.AUTHORIZATION);
      if (value == null || value.isBlank()) {
        return refuse(call, Status.UNAUTHENTICATED.withDescription("worker token required"));
      }
      if (!value.regionMatches(
              true, 0, AdminTokenInterceptor.BEARER, 0, AdminTokenInterceptor.BEARER.length())
          || !workerToken.matches(value.substring(AdminTokenInterceptor.BEARER.length()).strip())) {
        return refuse(call, Status.UNAUTHENTICATED.withDescription("bad worker token"));
      }
    }
    java.util.SortedSet<String> certified = null;
    if (certificates) {
      java.util.SortedSet<String> ids =
          WorkerCertificates.certifiedWorkers(
              call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
      if (ids.isEmpty()) {
        return refuse(
            call,
            Status.PERMISSION_DENIED.withDescription(
                "the client certificate names no worker "
                    + "(a SAN URI "
                    + SAN_PREFIX
                    + "ID is required on the worker-facing service)"));
      }
      certified = ids;
    }
    Context context =
        Context.current().withValues(CERTIFIED, certified, SECRET, headers.get(SESSION_SECRET));
    return Contexts.interceptCall(context, call, headers, next);
  }

  private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Status status) {
    call.close(status, new Metadata());
    return new ServerCall.Listener<>() {};
  }

  /**
   * Why the current call may not act as {@code workerId}: its client certificate names other
   * workers only. Empty when it may (or when calls carry no certificates).
   */
  public static Optional<String> notCertifiedAs(String workerId) {
    java.util.SortedSet<String> ids = CERTIFIED.get();
    if (ids == null || ids.contains(workerId)) {
      return Optional.empty();
    }
    return Optional.of(
        "the client certificate names worker " + String.join(", ", ids) + ", not " + workerId);
  }

  /** The session secret the current call carries, or null. */
  public static String presentedSecret() {
    return SECRET.get();
  }
}
