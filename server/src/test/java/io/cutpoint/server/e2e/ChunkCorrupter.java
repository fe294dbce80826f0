package io.cutpoint.server.e2e;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.PieceUpload;
import io.cutpoint.api.v1.UploadPart;
import io.cutpoint.api.v1.WorkerMessage;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Flips one bit of the first state chunk one worker uploads, as a faulty network might: in an
 * {@code UploadSnapshot} call, or in a piece sent whole on the session stream.
 */
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
    String method = call.getMethodDescriptor().getFullMethodName();
    if (method.endsWith("/Session")) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
        @Override
        @SuppressWarnings("unchecked")
        public void onMessage(Q message) {
          WorkerMessage m = (WorkerMessage) message;
          if (m.hasPiece()) {
            m = m.toBuilder().setPiece(corrupted(m.getPiece())).build();
          }
          super.onMessage((Q) m);
        }
      };
    }
    if (!method.endsWith("/UploadSnapshot")) {
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
        super.onMessage((Q) (victimUpload ? corrupted(part) : part));
      }
    };
  }

  private PieceUpload corrupted(PieceUpload piece) {
    if (piece.getPartsCount() == 0
        || !piece.getParts(0).getHeader().getMeta().getWorkerId().equals(victim)) {
      return piece;
    }
    PieceUpload.Builder out = piece.toBuilder().clearParts();
    piece.getPartsList().forEach(p -> out.addParts(corrupted(p)));
    return out.build();
  }

  /** The victim's part, with a bit flipped if it is the first state chunk with data. */
  private UploadPart corrupted(UploadPart part) {
    if (!part.hasStateChunk()
        || part.getStateChunk().getData().isEmpty()
        || !armed.compareAndSet(true, false)) {
      return part;
    }
    byte[] data = part.getStateChunk().getData().toByteArray();
    data[0] ^= 0x01;
    return part.toBuilder()
        .setStateChunk(part.getStateChunk().toBuilder().setData(ByteString.copyFrom(data)))
        .build();
  }
}
