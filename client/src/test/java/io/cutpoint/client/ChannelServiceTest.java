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
