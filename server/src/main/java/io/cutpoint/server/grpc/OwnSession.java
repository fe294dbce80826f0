package io.cutpoint.server.grpc;

import io.cutpoint.server.CoordinatorContext;
import io.cutpoint.server.security.WorkerIdentity;
import io.grpc.Status;
import java.util.Optional;

/**
 * Uploads and downloads are the caller's own: the worker they name has a live session, the call
 * carries that session's secret, and (under mutual TLS) the caller's certificate names that worker.
 * Called on the thread that runs the call's handler, in its context.
 */
final class OwnSession {

  private OwnSession() {}

  /**
   * @param what what the call does, for the message ("upload", "download")
   * @throws io.grpc.StatusRuntimeException PERMISSION_DENIED, saying which check failed
   */
  static LiveSession require(CoordinatorContext ctx, String workerId, String what) {
    Optional<String> other = WorkerIdentity.notCertifiedAs(workerId);
    if (other.isPresent()) {
      throw Status.PERMISSION_DENIED
          .withDescription(other.get() + "; a worker may " + what + " only its own piece")
          .asRuntimeException();
    }
    LiveSession session =
        ctx.sessions()
            .get(workerId)
            .filter(s -> ctx.membership().token(workerId) == s.token())
            .orElseThrow(
                () ->
                    Status.PERMISSION_DENIED
                        .withDescription(
                            "worker " + workerId + " has no live session; join before you " + what)
                        .asRuntimeException());
    if (!session.secretMatches(WorkerIdentity.presentedSecret())) {
      throw Status.PERMISSION_DENIED
          .withDescription(
              "the "
                  + what
                  + " does not carry the session secret of worker "
                  + workerId
                  + "'s live session (metadata "
                  + WorkerIdentity.SESSION_SECRET.name()
                  + ")")
          .asRuntimeException();
    }
    return session;
  }
}
