package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.grpc.Status;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client that is not the sender of a channel writes forged frames to a worker's channel port over
 * loopback gRPC. The worker refuses them with a status and leaves the channel as it was: the real
 * sender's messages are all delivered, once and in order, and snapshots still complete.
 */
class ForgedFrameTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final List<Long> seenByB = new CopyOnWriteArrayList<>();
  private final List<Long> completedByB = new CopyOnWriteArrayList<>();

  /** Accepts TCP connections and never answers: a real sender pointed here is cut off. */
  private ServerSocket nowhere;

  private Worker a;
  private Worker b;

  private void start(ParkingLimits limits) throws IOException {
    nowhere = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    b =
        Worker.builder("b")
            .incoming("a")
            .stateHandler(new NoState())
            .parkingLimits(limits)
            .messageHandler((from, seq, payload) -> seenByB.add(seq))
            .build()
            .start();
    b.setSnapshotListener(
        new WorkerControl.LocalSnapshotListener() {
          @Override
          public void completed(CompletedLocalSnapshot snapshot) {
            completedByB.add(snapshot.cut().snapshotId());
          }

          @Override
          public void failed(long snapshotId, String reason) {}
        });
    a =
        Worker.builder("a")
            .outgoing("b")
            .stateHandler(new NoState())
            .messageHandler((from, seq, payload) -> {})
            .channelOptions(
                ChannelOptions.defaults()
                    .withReconnect(Duration.ofMillis(10), Duration.ofMillis(100)))
            .peers(Map.of("b", b.channelAddress()))
            .build()
            .start();
  }

  @AfterEach
  void stop() throws IOException {
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
    if (nowhere != null) {
      nowhere.close();
    }
  }

  private void send(int messages) {
    for (int i = 0; i < messages; i++) {
      a.send("b", new byte[8]);
    }
  }

  private void cutOffTheRealSender() {
    a.updatePeers(Map.of("b", "127.0.0.1:" + nowhere.getLocalPort()));
  }

  private void reconnectTheRealSender() {
    a.updatePeers(Map.of("b", b.channelAddress()));
  }

  /** Every message a sent arrived at b, once and in order, and a snapshot still completes. */
  private void assertTheChannelStillWorks(long snapshotId) {
    send(3);
    long sent = a.sentCount("b");
    await().atMost(WAIT).until(() -> seenByB.size() >= sent);
    assertThat(seenByB)
        .as("messages delivered to b")
        .containsExactlyElementsOf(LongStream.rangeClosed(1, sent).boxed().toList());
    a.startSnapshot(snapshotId);
    await().atMost(WAIT).until(() -> completedByB.contains(snapshotId));
    assertThat(b.receivedCount("a")).isEqualTo(sent);
  }

  private static Status endOf(ForgedClient.Stream s) {
    await().atMost(WAIT).until(s.end::isDone);
    return s.end.join();
  }

  private ForgedClient.Stream forge(ForgedClient forger) {
    ForgedClient.Stream s = forger.open("a", "b");
    await().atMost(WAIT).until(() -> !s.acks.isEmpty());
    return s;
  }

  @Test
  void aFrameOfAFarFutureEpochIsRefusedAndTheRealSendersLaterFramesAreDelivered() throws Exception {
    start(ParkingLimits.defaults());
    send(10);
    await().atMost(WAIT).until(() -> seenByB.size() == 10);
    cutOffTheRealSender();
    send(5); // held by a until it reaches b again

    try (ForgedClient forger = new ForgedClient(b.channelAddress())) {
      ForgedClient.Stream s = forge(forger);
      s.send(ForgedClient.data(1_000, s.firstAckPosition() + 1, 11, 8));
      Status refused = endOf(s);
      assertThat(refused.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(refused.getDescription()).contains("epoch 1000").contains("epoch 0");
    }
    reconnectTheRealSender();
    assertTheChannelStillWorks(1);
  }

  @Test
  void framesParkedWhileTheWorkerIsHaltedAreBoundedInCount() throws Exception {
    start(new ParkingLimits(3, 1 << 20, Duration.ofMinutes(5)));
    cutOffTheRealSender();
    b.halt(1); // b parks every frame of epoch 1 until it resumes
    try (ForgedClient forger = new ForgedClient(b.channelAddress())) {
      ForgedClient.Stream s = forge(forger);
      for (int position = 1; position <= 4; position++) {
        s.send(ForgedClient.data(1, position, position, 8));
      }
      Status refused = endOf(s);
      assertThat(refused.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(refused.getDescription()).contains("3 frames");
    }
    rollBothTo(1);
    assertTheChannelStillWorks(1);
  }

  @Test
  void framesParkedWhileTheWorkerIsHaltedAreBoundedInBytes() throws Exception {
    start(new ParkingLimits(100, 4096, Duration.ofMinutes(5)));
    cutOffTheRealSender();
    b.halt(1);
    try (ForgedClient forger = new ForgedClient(b.channelAddress())) {
      ForgedClient.Stream s = forge(forger);
      s.send(ForgedClient.data(1, 1, 1, 3000));
      s.send(ForgedClient.data(1, 2, 2, 3000));
      Status refused = endOf(s);
      assertThat(refused.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(refused.getDescription()).contains("4096 bytes");
    }
    rollBothTo(1);
    assertTheChannelStillWorks(1);
  }

  @Test
  void framesParkedWhileTheWorkerIsHaltedAreBoundedInTime() throws Exception {
    start(new ParkingLimits(100, 1 << 20, Duration.ofMillis(200)));
    cutOffTheRealSender();
    b.halt(1);
    try (ForgedClient forger = new ForgedClient(b.channelAddress())) {
      ForgedClient.Stream s = forge(forger);
      s.send(ForgedClient.data(1, 1, 1, 8));
      Status refused = endOf(s);
      assertThat(refused.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      assertThat(refused.getDescription()).contains("parked");
    }
    rollBothTo(1);
    assertTheChannelStillWorks(1);
  }

  @Test
  void aDataItemOutOfSequenceIsRefusedAndTheRealItemAtItsPositionIsDelivered() throws Exception {
    start(ParkingLimits.defaults());
    send(10);
    await().atMost(WAIT).until(() -> seenByB.size() == 10);
    cutOffTheRealSender();
    send(5);

    try (ForgedClient forger = new ForgedClient(b.channelAddress())) {
      ForgedClient.Stream s = forge(forger);
      long position = s.firstAckPosition() + 1;
      s.send(ForgedClient.data(0, position, 99, 8)); // seq 11 was expected
      awaitProcessed(s, position);
      reconnectTheRealSender();
      assertTheChannelStillWorks(1);
      assertThat(s.end.join().getCode()).isEqualTo(Status.Code.DATA_LOSS);
      assertThat(s.end.join().getDescription()).contains("position " + position);
    }
  }

  @Test
  void aMarkerWithAWrongSentCountIsRefusedAndTheRealItemAtItsPositionIsDelivered()
      throws Exception {
    start(ParkingLimits.defaults());
    send(10);
    await().atMost(WAIT).until(() -> seenByB.size() == 10);
    cutOffTheRealSender();
    send(5);

    try (ForgedClient forger = new ForgedClient(b.channelAddress())) {
      ForgedClient.Stream s = forge(forger);
      long position = s.firstAckPosition() + 1;
      s.send(ForgedClient.marker(0, position, 77, 999)); // 10 messages arrived, not 999
      awaitProcessed(s, position);
      reconnectTheRealSender();
      assertTheChannelStillWorks(1);
      // that it started none at all, also read ahead, is WorkerCoreRefusalTest's
      assertThat(completedByB).as("the forged marker completed no snapshot").doesNotContain(77L);
      assertThat(s.end.join().getCode()).isEqualTo(Status.Code.DATA_LOSS);
      assertThat(s.end.join().getDescription()).contains("position " + position);
    }
  }

  @Test
  void anEmptyItemOrAMarkerCountBeyondAnySendersReachIsRefusedAsInvalid() throws Exception {
    start(ParkingLimits.defaults());
    send(4);
    await().atMost(WAIT).until(() -> seenByB.size() == 4);
    cutOffTheRealSender();
    send(2);

    try (ForgedClient forger = new ForgedClient(b.channelAddress())) {
      ForgedClient.Stream empty = forge(forger);
      long position = empty.firstAckPosition() + 1;
      empty.send(
          Frame.newBuilder().setEpoch(0).addItems(Item.newBuilder().setPosition(position)).build());
      Status refused = endOf(empty);
      assertThat(refused.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(refused.getDescription()).contains("neither data nor a marker");

      ForgedClient.Stream huge = forge(forger);
      assertThat(huge.firstAckPosition()).as("the empty item took no position").isEqualTo(4);
      huge.send(ForgedClient.marker(0, position, 5, -1L)); // 2^64 - 1 on the wire
      refused = endOf(huge);
      assertThat(refused.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(refused.getDescription()).contains("18446744073709551615");
    }
    reconnectTheRealSender();
    assertTheChannelStillWorks(1);
    assertThat(completedByB).as("the forged marker started no snapshot").doesNotContain(5L);
  }

  /** The worker handled the forged item: it either acknowledged it or ended the stream. */
  private static void awaitProcessed(ForgedClient.Stream s, long position) {
    await()
        .atMost(WAIT)
        .until(
            () -> s.end.isDone() || s.acks.stream().anyMatch(ack -> ack.getPosition() >= position));
  }

  private void rollBothTo(long epoch) {
    reconnectTheRealSender();
    a.halt(epoch);
    a.resume(epoch);
    b.resume(epoch);
  }
}
