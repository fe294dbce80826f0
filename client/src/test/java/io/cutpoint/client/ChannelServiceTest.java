package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.Frame;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Channel service as a raw gRPC client sees it: refusals, first ack, duplicates. */
class ChannelServiceTest {

  private final List<String> delivered = new CopyOnWriteArrayList<>();
  private Worker b;
  private ForgedClient client;

  @BeforeEach
  void start() {
    b =
        Worker.builder("b")
            .incoming("a")
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> delivered.add(from + seq))
            .build()
            .start();
    client = new ForgedClient(b.channelAddress());
  }

  @AfterEach
  void stop() throws InterruptedException {
    client.close();
    b.close();
  }

  private Status refusal(Frame first) throws Exception {
    return client.open(first).end.get(5, TimeUnit.SECONDS);
  }

  private static Frame header(String from, String to) {
    return ForgedClient.header(from, to);
  }

  private static Frame data(long epoch, long position, long seq) {
    return ForgedClient.data(epoch, position, seq, 0);
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
        .isEqualTo(
            "the channel header's sender: worker id is 1048576 characters long; at most 128 are allowed");

    Status longReceiver = refusal(header("a", huge));
    assertThat(longReceiver.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(longReceiver.getDescription())
        .isEqualTo(
            "the channel header's receiver: worker id is 1048576 characters long; at most 128 are allowed");

    Status controlCharacters = refusal(header("a\r\nb", "b"));
    assertThat(controlCharacters.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(controlCharacters.getDescription()).contains("may only contain A-Z a-z 0-9 . _ -");
  }

  @Test
  void anUndeclaredSenderIsToldAFewOfTheDeclaredOnesAndHowManyThereAre() throws Exception {
    List<String> many =
        java.util.stream.IntStream.range(0, 5000).mapToObj(i -> "peer-" + i).toList();
    try (Worker wide =
        Worker.builder("wide")
            .incoming(many.toArray(String[]::new))
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> {})
            .build()
            .start()) {
      try (ForgedClient c = new ForgedClient(wide.channelAddress())) {
        Status undeclared = c.open("x", "wide").end.get(5, TimeUnit.SECONDS);
        assertThat(undeclared.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(undeclared.getDescription())
            .startsWith(
                "channel 'x' -> 'wide' is not declared: "
                    + "worker 'wide' receives from 5000 workers (peer-0, peer-1, ")
            .endsWith(", ...)")
            .hasSizeLessThan(300);
      }
    }
  }

  @Test
  void theFirstAckTellsWhereToResumeAndDuplicatesAndOldEpochsAreDropped() throws Exception {
    ForgedClient.Stream first = client.open("a", "b");
    await().until(() -> !first.acks.isEmpty());
    assertThat(first.acks.get(0).getPosition()).isZero();
    first.send(data(0, 1, 1));
    first.send(data(0, 2, 2));
    first.send(data(0, 2, 2)); // a duplicate
    await().until(() -> first.acks.stream().anyMatch(a -> a.getPosition() == 2));

    ForgedClient.Stream second =
        client.open("a", "b"); // a reconnect: the new stream replaces the old one
    await().until(() -> !second.acks.isEmpty());
    assertThat(second.acks.get(0).getEpoch()).isZero();
    assertThat(second.acks.get(0).getPosition()).as("resume after position 2").isEqualTo(2);
    assertThat(first.end.get(5, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.ABORTED);
    second.send(data(0, 2, 2)); // resent
    second.send(data(0, 3, 3));
    await().until(() -> second.acks.stream().anyMatch(a -> a.getPosition() == 3));

    b.halt(1);
    b.resume(1);
    second.send(data(0, 4, 4)); // an old epoch: dropped
    second.send(data(1, 1, 4));
    await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 4);
    assertThat(delivered).containsExactly("a1", "a2", "a3", "a4");
    assertThat(second.acks.get(second.acks.size() - 1).getEpoch()).isEqualTo(1);
    second.complete();
  }
}
