package io.cutpoint.server.grpc;

import io.cutpoint.api.v1.CoordinatorMessage;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;

/**
 * Stamps the leader term on every message a coordinator sends a worker ({@code
 * CoordinatorMessage.term}), at the edge, so that the coordinator itself knows nothing of terms. A
 * worker refuses a message of a term older than one it has seen: the command of a replaced leader.
 */
public final class TermStamp implements ServerInterceptor {
  private final long term;

  /**
   * @param term the leader term, 1 or more
   */
  public TermStamp(long term) {
    if (term < 1) {
      throw new IllegalArgumentException("a leader term is 1 or more, got " + term);
    }
    this.term = term;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    return next.startCall(
        new ForwardingServerCall.SimpleForwardingServerCall<Q, R>(call) {
          @Override
          @SuppressWarnings("unchecked") // R is CoordinatorMessage where the message is one
          public void sendMessage(R message) {
            if (message instanceof CoordinatorMessage m) {
              super.sendMessage((R) m.toBuilder().setTerm(term).build());
            } else {
              super.sendMessage(message);
            }
          }
        },
        headers);
  }
}
