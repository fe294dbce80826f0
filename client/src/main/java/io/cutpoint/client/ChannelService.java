package io.cutpoint.client;

import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.Frame;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * The worker's {@code Channel} service. It runs on gRPC's transport threads and does no work
 * there: it checks the header, then hands every frame to the event thread ({@link WorkerCore}).
 * Inbound flow control is manual: the event thread asks for a frame each time it processed one,
 * so a busy worker stops reading and its senders fill up and wait.
 */
final class ChannelService extends ChannelGrpc.ChannelImplBase {

  private final WorkerCore core;
  private final EventLoop loop;

  ChannelService(WorkerCore core, EventLoop loop) {
    this.core = core;
    this.loop = loop;
  }

  @Override
  public StreamObserver<Frame> open(StreamObserver<Ack> responseObserver) {
    ServerCallStreamObserver<Ack> out = (ServerCallStreamObserver<Ack>) responseObserver;
    out.disableAutoRequest();
    InboundStream stream = new InboundStream(out);
    stream.request(1);
    return new FrameObserver(stream);
  }

  private final class FrameObserver implements StreamObserver<Frame> {
    private final InboundStream stream;
    private ChannelReceiver receiver;
    private boolean rejected;

    FrameObserver(InboundStream stream) {
      this.stream = stream;
    }

    @Override
    public void onNext(Frame frame) {
      if (rejected) {
        return;
      }
      if (receiver == null) {
        receiver = accept(frame);
        if (receiver == null) {
          return;
        }
        ChannelReceiver r = receiver;
        loop.execute(() -> core.attach(r, stream));
        if (frame.getItemsCount() == 0) {
          return;
        }
      }
      ChannelReceiver r = receiver;
      loop.execute(() -> core.onFrame(r, stream, frame));
    }

    private ChannelReceiver accept(Frame frame) {
      if (!frame.hasHeader()) {
        return reject(Status.INVALID_ARGUMENT.withDescription(
            "the first frame of a Channel.Open stream must carry a header"));
      }
      String from = frame.getHeader().getFrom();
      String to = frame.getHeader().getTo();
      if (!core.workerId().equals(to)) {
        return reject(Status.INVALID_ARGUMENT.withDescription(
            "this is worker '" + core.workerId() + "', not '" + to + "'"));
      }
      ChannelReceiver r = core.receiver(from);
      if (r == null) {
        return reject(Status.INVALID_ARGUMENT.withDescription("channel '" + from + "' -> '" + to
            + "' is not declared: worker '" + to + "' receives from " + core.incoming()));
      }
      return r;
    }

    private ChannelReceiver reject(Status status) {
      rejected = true;
      stream.fail(status);
      return null;
    }

    @Override
    public void onError(Throwable t) {
      detach();
    }

    @Override
    public void onCompleted() {
      detach();
    }

    private void detach() {
      ChannelReceiver r = receiver;
      if (r != null) {
        loop.execute(() -> core.detach(r, stream));
      }
    }
  }
}
