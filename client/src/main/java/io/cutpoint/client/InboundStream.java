package io.cutpoint.client;

import io.cutpoint.api.v1.Ack;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;

/**
 * The server side of one {@code Channel.Open} stream, as the event thread uses it: acks out,
 * frame requests (manual inbound flow control), and failing the stream. After the client cancels,
 * every call is a no-op.
 */
final class InboundStream {

  private final ServerCallStreamObserver<Ack> out;
  private volatile boolean closed;

  InboundStream(ServerCallStreamObserver<Ack> out) {
    this.out = out;
    out.setOnCancelHandler(() -> closed = true);
  }

  void ack(long epoch, long position) {
    if (!closed) {
      out.onNext(Ack.newBuilder().setEpoch(epoch).setPosition(position).build());
    }
  }

  void request(int frames) {
    if (!closed) {
      out.request(frames);
    }
  }

  void fail(Status status) {
    if (!closed) {
      closed = true;
      out.onError(status.asRuntimeException());
    }
  }

  void complete() {
    if (!closed) {
      closed = true;
      out.onCompleted();
    }
  }
}
