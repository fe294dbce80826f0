package io.cutpoint.server.e2e;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.UploadPart;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.util.concurrent.atomic.AtomicBoolean;

/** Flips one bit of the first state chunk one worker uploads, as a faulty network might. */
final class ChunkCorrupter implements ServerInterceptor {

  private final String victim;
  private final AtomicBoolean armed;

  ChunkCorrupter(String victim, AtomicBoolean armed) {
    this.victim = victim;
    this.armed = armed;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    ServerCall.Listener<Q> listener = next.startCall(call, headers);
    if (!call.getMethodDescriptor().getFullMethodName().endsWith("UploadSnapshot")) {
      return listener;
    }
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
      private boolean victimUpload;

      @Override
      @SuppressWarnings("unchecked")
      public void onMessage(Q message) {
        UploadPart part = (UploadPart) message;
        if (part.hasHeader()) {
          victimUpload = part.getHeader().getMeta().getWorkerId().equals(victim);
        }
        if (victimUpload
            && part.hasStateChunk()
            && part.getStateChunk().getData().size() > 0
            && armed.compareAndSet(true, false)) {
          byte[] data = part.getStateChunk().getData().toByteArray();
          data[0] ^= 0x01;
          part =
              part.toBuilder()
                  .setStateChunk(
                      part.getStateChunk().toBuilder().setData(ByteString.copyFrom(data)))
                  .build();
        }
        super.onMessage((Q) part);
      }
    };
  }
}
