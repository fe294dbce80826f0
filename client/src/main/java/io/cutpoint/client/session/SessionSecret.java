package io.cutpoint.client.session;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;

/**
 * The secret of the worker's current session (from the welcome), which every upload and download
 * carries in the metadata {@code cutpoint-session-secret}: the coordinator accepts them only with
 * the secret of the worker's live session. Replaced at every welcome.
 */
final class SessionSecret implements ClientInterceptor {

  static final Metadata.Key<String> KEY =
      Metadata.Key.of("cutpoint-session-secret", Metadata.ASCII_STRING_MARSHALLER);

  private volatile String secret = "";

  void set(String s) {
    secret = s == null ? "" : s;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        String s = secret;
        if (!s.isEmpty()) {
          headers.put(KEY, s);
        }
        super.start(listener, headers);
      }
    };
  }
}
