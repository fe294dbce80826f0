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
  private final WireEffects effects;

  ChannelService(WorkerCore core, EventLoop loop, WireEffects effects) {
    this.core = core;
    this.loop = loop;
    this.effects = effects;
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
        String r = receiver.from();
        loop.execute(() -> effects.apply(core.attach(r, stream)));
        if (frame.getItemsCount() == 0) {
          return;
        }
      }
      String r = receiver.from();
      InboundFrame inbound = Frames.toDomain(frame);
      loop.execute(() -> effects.apply(core.onFrame(r, stream, inbound)));
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
      if (receiver != null) {
        String r = receiver.from();
        loop.execute(() -> effects.apply(core.detach(r, stream)));
      }
    }
  }
}
