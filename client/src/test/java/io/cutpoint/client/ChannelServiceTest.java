package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.Ack;
import io.cutpoint.api.v1.ChannelGrpc;
import io.cutpoint.api.v1.ChannelHeader;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Channel service as a raw gRPC client sees it: refusals, first ack, duplicates. */
class ChannelServiceTest {

  private final List<String> delivered = new CopyOnWriteArrayList<>();
  private Worker b;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    b = Worker.builder("b").incoming("a").stateHandler(new NoState())
        .messageHandler((from, seq, payload) -> delivered.add(from + seq)).build().start();
    channel = ManagedChannelBuilder.forTarget(b.channelAddress()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    b.close();
  }

  private static final class Acks implements StreamObserver<Ack> {
    final List<Ack> acks = new CopyOnWriteArrayList<>();
    final CompletableFuture<Status> end = new CompletableFuture<>();

    @Override
    public void onNext(Ack ack) {
      acks.add(ack);
    }

    @Override
    public void onError(Throwable t) {
      end.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      end.complete(Status.OK);
    }
  }

  private Status refusal(Frame first) throws Exception {
    Acks acks = new Acks();
    StreamObserver<Frame> out = ChannelGrpc.newStub(channel).open(acks);
    out.onNext(first);
    return acks.end.get(5, TimeUnit.SECONDS);
  }

  private static Frame header(String from, String to) {
    return Frame.newBuilder().setHeader(ChannelHeader.newBuilder().setFrom(from).setTo(to)).build();
  }

  private static Frame data(long epoch, long position, long seq) {
    return Frame.newBuilder().setEpoch(epoch).addItems(Item.newBuilder().setPosition(position)
        .setData(DataMessage.newBuilder().setSeq(seq))).build();
  }

  @Test
  void aStreamWithoutHeaderForAnotherWorkerOrOnAnUndeclaredChannelIsRefused() throws Exception {
    Status noHeader = refusal(data(0, 1, 1));
    assertThat(noHeader.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(noHeader.getDescription()).contains("header");

    Status wrongWorker = refusal(header("a", "c"));
    assertThat(wrongWorker.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(wrongWorker.getDescription()).contains("this is worker 'b'");

    Status undeclared = refusal(header("x", "b"));
    assertThat(undeclared.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(undeclared.getDescription()).contains("not declared");
  }

  @Test
  void aHostileHeaderIsRefusedByWhatIsWrongWithItWithoutEchoingIt() throws Exception {
    String huge = "x".repeat(1 << 20); // a 1 MiB id: under the frame limit, far over the id limit
    Status longSender = refusal(header(huge, "b"));
    assertThat(longSender.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(longSender.getDescription())
        .isEqualTo("the channel header's sender: worker id is 1048576 characters long; at most 128 are allowed");

    Status longReceiver = refusal(header("a", huge));
    assertThat(longReceiver.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(longReceiver.getDescription())
        .isEqualTo("the channel header's receiver: worker id is 1048576 characters long; at most 128 are allowed");

    Status controlCharacters = refusal(header("a\r\nb", "b"));
    assertThat(controlCharacters.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(controlCharacters.getDescription()).contains("may only contain A-Z a-z 0-9 . _ -");
  }

  @Test
  void anUndeclaredSenderIsToldAFewOfTheDeclaredOnesAndHowManyThereAre() throws Exception {
    List<String> many = java.util.stream.IntStream.range(0, 5000).mapToObj(i -> "peer-" + i).toList();
    try (Worker wide = Worker.builder("wide").incoming(many.toArray(String[]::new))
        .stateHandler(new NoState()).messageHandler((from, seq, payload) -> { }).build().start()) {
      ManagedChannel c = ManagedChannelBuilder.forTarget(wide.channelAddress()).usePlaintext().build();
      try {
        Acks acks = new Acks();
        ChannelGrpc.newStub(c).open(acks).onNext(header("x", "wide"));
        Status undeclared = acks.end.get(5, TimeUnit.SECONDS);
        assertThat(undeclared.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(undeclared.getDescription()).startsWith("channel 'x' -> 'wide' is not declared: "
            + "worker 'wide' receives from 5000 workers (peer-0, peer-1, ").endsWith(", ...)")
            .hasSizeLessThan(300);
      } finally {
        c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void theFirstAckTellsWhereToResumeAndDuplicatesAndOldEpochsAreDropped() throws Exception {
    Acks first = new Acks();
    StreamObserver<Frame> s1 = ChannelGrpc.newStub(channel).open(first);
    s1.onNext(header("a", "b"));
    await().until(() -> !first.acks.isEmpty());
    assertThat(first.acks.get(0).getPosition()).isZero();
    s1.onNext(data(0, 1, 1));
    s1.onNext(data(0, 2, 2));
    s1.onNext(data(0, 2, 2)); // a duplicate
    await().until(() -> first.acks.stream().anyMatch(a -> a.getPosition() == 2));

    Acks second = new Acks(); // a reconnect: the new stream replaces the old one
    StreamObserver<Frame> s2 = ChannelGrpc.newStub(channel).open(second);
    s2.onNext(header("a", "b"));
    await().until(() -> !second.acks.isEmpty());
    assertThat(second.acks.get(0).getEpoch()).isZero();
    assertThat(second.acks.get(0).getPosition()).as("resume after position 2").isEqualTo(2);
    assertThat(first.end.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.ABORTED);
    s2.onNext(data(0, 2, 2)); // resent
    s2.onNext(data(0, 3, 3));
    await().until(() -> second.acks.stream().anyMatch(a -> a.getPosition() == 3));

    b.halt(1);
    b.resume(1);
    s2.onNext(data(0, 4, 4)); // an old epoch: dropped
    s2.onNext(data(1, 1, 4));
    await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 4);
    assertThat(delivered).containsExactly("a1", "a2", "a3", "a4");
    assertThat(second.acks.get(second.acks.size() - 1).getEpoch()).isEqualTo(1);
    s2.onCompleted();
  }
}
