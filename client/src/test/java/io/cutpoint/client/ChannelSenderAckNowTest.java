package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A sender asks for an ack at once ({@code Frame.ack_now}) only when it needs the room: once what
 * its channel holds unacknowledged reaches half its bound. Its receiver here is a bare channel
 * server that records each position's flag and acknowledges nothing after the stream's start, so
 * what the channel holds is exactly what it sent.
 */
class ChannelSenderAckNowTest {

  private static final int BOUND = 8;

  /** Position -> the ack_now flag of the frame that carried it. */
  private final Map<Long, Boolean> askedAt = new ConcurrentHashMap<>();

  private Server server;

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private final class Recorder extends ChannelGrpc.ChannelImplBase {
    @Override
    public StreamObserver<Frame> open(StreamObserver<Ack> acks) {
      return new StreamObserver<>() {
        @Override
        public void onNext(Frame frame) {
          if (frame.hasHeader()) {
            acks.onNext(Ack.newBuilder().setEpoch(frame.getEpoch()).setPosition(0).build());
          }
          for (Item item : frame.getItemsList()) {
            askedAt.put(item.getPosition(), frame.getAckNow());
          }
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          acks.onCompleted();
        }
      };
    }
  }

  @Test
  void framesAskForAnAckAtOnceFromHalfTheBoundOn() throws Exception {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new Recorder())
            .build()
            .start();
    try (Worker a =
        Worker.builder("a")
            .outgoing("b")
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> {})
            .channelOptions(
                ChannelOptions.defaults()
                    .withMaxUnacked(BOUND, 1 << 20)
                    .withSendTimeout(Duration.ofSeconds(30)))
            .peers(Map.of("b", "127.0.0.1:" + server.getPort()))
            .build()
            .start()) {
      // one message at a time, each in a frame of its own, so each flag is that of its position
      for (long position = 1; position <= BOUND; position++) {
        a.send("b", new byte[1]);
        long p = position;
        await().atMost(Duration.ofSeconds(30)).until(() -> askedAt.containsKey(p));
      }
    }
    assertThat(List.of(1L, 2L, 3L)).allSatisfy(p -> assertThat(askedAt.get(p)).isFalse());
    assertThat(List.of(4L, 5L, 6L, 7L, 8L)).allSatisfy(p -> assertThat(askedAt.get(p)).isTrue());
  }
}
