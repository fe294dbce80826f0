package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.Frame;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A receiver that acknowledges each stream's start and then refuses what it is resent (here with
 * RESOURCE_EXHAUSTED, as gRPC refuses a frame larger than the receiver takes) is retried with a
 * growing backoff: the first ack of a stream with something to resend is no sign of health. The
 * bare channel server here records when each stream opens.
 */
class ChannelSenderBackoffTest {

  private static final Duration INITIAL = Duration.ofMillis(20);

  private final List<Long> opened = new CopyOnWriteArrayList<>();
  private Server server;

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private final class Refuser extends ChannelGrpc.ChannelImplBase {
    @Override
    public StreamObserver<Frame> open(StreamObserver<Ack> acks) {
      opened.add(System.nanoTime());
      return new StreamObserver<>() {
        @Override
        public void onNext(Frame frame) {
          if (frame.hasHeader()) {
            acks.onNext(Ack.newBuilder().setEpoch(frame.getEpoch()).setPosition(0).build());
          }
          if (frame.getItemsCount() > 0) {
            acks.onError(Status.RESOURCE_EXHAUSTED.withDescription("too large").asException());
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
  void aStreamRefusedAfterItsFirstAckIsRetriedWithAGrowingBackoff() throws Exception {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new Refuser())
            .build()
            .start();
    try (Worker a =
        Worker.builder("a")
            .outgoing("b")
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> {})
            .channelOptions(ChannelOptions.defaults().withReconnect(INITIAL, Duration.ofSeconds(5)))
            .peers(Map.of("b", "127.0.0.1:" + server.getPort()))
            .build()
            .start()) {
      a.send("b", new byte[1]);
      await().atMost(Duration.ofSeconds(30)).until(() -> opened.size() >= 6);
    }
    // Delays of 20, 40, 80, 160 ms and more, each within the jitter: the sixth stream opens at
    // least 16 x 0.8 initial delays after the fifth. Without the growth every one is ~20 ms.
    long lastGap = opened.get(5) - opened.get(4);
    assertThat(Duration.ofNanos(lastGap))
        .isGreaterThanOrEqualTo(INITIAL.multipliedBy(16).multipliedBy(8).dividedBy(10));
  }
}
