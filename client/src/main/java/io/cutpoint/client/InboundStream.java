package io.cutpoint.client;

import io.cutpoint.api.v1.Ack;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;

/**
 * The server side of one {@code Channel.Open} stream, as the worker core's effects use it: acks
 * out, frame requests (manual inbound flow control), and ending the stream. After the client
 * cancels, every call is a no-op.
 */
final class InboundStream implements InboundLink {

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

  /** Ends the stream with the status that stands for {@code refusal}. */
  void refuse(Refusal refusal) {
    fail(statusOf(refusal.kind()).withDescription(refusal.description()));
  }

  static Status statusOf(Refusal.Kind kind) {
    return switch (kind) {
      case REPLACED -> Status.ABORTED;
      case EPOCH_NOT_ANNOUNCED -> Status.FAILED_PRECONDITION;
      case PARKING_FULL -> Status.RESOURCE_EXHAUSTED;
      case PARKED_TOO_LONG -> Status.DEADLINE_EXCEEDED;
      case DATA_LOSS -> Status.DATA_LOSS;
      case MALFORMED -> Status.INVALID_ARGUMENT;
    };
  }

  void complete() {
    if (!closed) {
      closed = true;
      out.onCompleted();
    }
  }
}
