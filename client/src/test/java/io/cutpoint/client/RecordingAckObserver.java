package io.cutpoint.client;

import io.cutpoint.api.v1.Ack;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * The server end of a {@code Channel.Open} call without a network, for driving {@link WorkerCore}
 * directly: it records the acks, the frames requested and how the stream ended, and counts any
 * event that arrives after the end (gRPC would refuse it).
 */
final class RecordingAckObserver extends ServerCallStreamObserver<Ack> {

  final List<Ack> acks = new ArrayList<>();
  long requested;
  Status end;
  int eventsAfterEnd;

  /** A stream as the worker's channel service makes it. */
  InboundStream stream() {
    return new InboundStream(this);
  }

  long lastAckedPosition() {
    return acks.isEmpty() ? -1 : acks.get(acks.size() - 1).getPosition();
  }

  private boolean ended() {
    if (end != null) {
      eventsAfterEnd++;
      return true;
    }
    return false;
  }

  @Override
  public void onNext(Ack ack) {
    if (!ended()) {
      acks.add(ack);
    }
  }

  @Override
  public void onError(Throwable t) {
    if (!ended()) {
      end = Status.fromThrowable(t);
    }
  }

  @Override
  public void onCompleted() {
    if (!ended()) {
      end = Status.OK;
    }
  }

  @Override
  public void request(int count) {
    if (end == null) {
      requested += count;
    }
  }

  @Override
  public boolean isCancelled() {
    return false;
  }

  @Override
  public void setOnCancelHandler(Runnable onCancelHandler) {}

  @Override
  public void setCompression(String compression) {}

  @Override
  public boolean isReady() {
    return true;
  }

  @Override
  public void setOnReadyHandler(Runnable onReadyHandler) {}

  @Override
  public void disableAutoInboundFlowControl() {}

  @Override
  public void setMessageCompression(boolean enable) {}
}
