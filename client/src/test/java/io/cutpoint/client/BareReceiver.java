package io.cutpoint.client;

import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.Frame;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A bare channel server in place of worker b's receiver, for tests of a sender's own behaviour: it
 * acknowledges each stream's start (position 0, nothing delivered) and hands every frame to {@code
 * onFrame}, which may answer or end the stream. {@link #sender} is worker a, sending to it.
 */
final class BareReceiver implements AutoCloseable {

  /** What the receiver does with each frame of a stream. */
  interface OnFrame {
    void frame(Frame frame, StreamObserver<Ack> acks);
  }

  private final Server server;

  BareReceiver(Runnable onOpen, OnFrame onFrame) throws IOException {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                new ChannelGrpc.ChannelImplBase() {
                  @Override
                  public StreamObserver<Frame> open(StreamObserver<Ack> acks) {
                    onOpen.run();
                    return new StreamObserver<>() {
                      @Override
                      public void onNext(Frame frame) {
                        if (frame.hasHeader()) {
                          acks.onNext(
                              Ack.newBuilder().setEpoch(frame.getEpoch()).setPosition(0).build());
                        }
                        onFrame.frame(frame, acks);
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        acks.onCompleted();
                      }
                    };
                  }
                })
            .build()
            .start();
  }

  /** Worker a, with a channel to this receiver as b. */
  Worker sender(ChannelOptions options) {
    return Worker.builder("a")
        .outgoing("b")
        .stateHandler(new NoState())
        .messageHandler((from, seq, payload) -> {})
        .channelOptions(options)
        .peers(Map.of("b", "127.0.0.1:" + server.getPort()))
        .build()
        .start();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
