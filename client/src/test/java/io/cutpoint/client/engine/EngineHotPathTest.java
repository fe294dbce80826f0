package io.cutpoint.client.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.cut.InTransitMessage;
import io.cutpoint.cut.LocalSnapshot;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code send} and {@code onData} are per-message paths: with no snapshot recording the channel
 * they allocate nothing. Also prints their cost per call (informative; timing is not asserted on a
 * shared machine).
 */
class EngineHotPathTest {

  private static final int CALLS = 2_000_000;
  private static final byte[] PAYLOAD = new byte[16];

  private static final class Sink implements EngineOutput {
    long delivered;
    final List<CompletedLocalSnapshot> completed = new ArrayList<>();

    @Override
    public void sendMarker(String to, long snapshotId, long sentCount) {}

    @Override
    public void deliver(String from, long seq, byte[] payload) {
      delivered += seq;
    }

    @Override
    public void completed(CompletedLocalSnapshot snapshot) {
      completed.add(snapshot);
    }

    @Override
    public void failed(long snapshotId, String reason) {}
  }

  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getCurrentThreadAllocatedBytes();
  }

  /** Runs CALLS send + onData pairs; returns nanoseconds per pair. */
  private static double loop(SnapshotEngine sender, SnapshotEngine receiver) {
    long start = System.nanoTime();
    for (int i = 0; i < CALLS; i++) {
      long seq = sender.send("r", PAYLOAD);
      receiver.onData("s", seq, PAYLOAD);
    }
    return (System.nanoTime() - start) / (double) CALLS;
  }

  @Test
  void sendAndOnDataAllocateNothingWhileNoSnapshotIsInFlight() {
    Sink sink = new Sink();
    SnapshotEngine sender =
        new SnapshotEngine(
            "s",
            List.of("r", "x", "y"),
            List.of(),
            id -> CapturedState.of(new byte[0]),
            sink,
            EngineOptions.defaults());
    SnapshotEngine receiver =
        new SnapshotEngine(
            "r",
            List.of(),
            List.of("s", "x", "y"),
            id -> CapturedState.of(new byte[0]),
            sink,
            EngineOptions.defaults());
    loop(sender, receiver); // warm up
    loop(sender, receiver);
    long before = allocatedBytes();
    double nanos = loop(sender, receiver);
    long allocated = allocatedBytes() - before;
    System.out.printf(
        "send+onData, no snapshot in flight: %.1f ns per message, %d bytes allocated"
            + " over %d messages%n",
        nanos, allocated, CALLS);
    assertThat(allocated)
        .as("bytes allocated by %d send+onData pairs", CALLS)
        .isLessThan(64 * 1024);
    assertThat(receiver.received("s")).isEqualTo(3L * CALLS);
  }

  @Test
  void whileRecordingEachMessageCostsOneRecordedMessage() {
    Sink sink = new Sink();
    SnapshotEngine sender =
        new SnapshotEngine(
            "s",
            List.of("r"),
            List.of(),
            id -> CapturedState.of(new byte[0]),
            sink,
            EngineOptions.defaults());
    SnapshotEngine receiver =
        new SnapshotEngine(
            "r",
            List.of(),
            List.of("s", "x"),
            id -> CapturedState.of(new byte[0]),
            sink,
            EngineOptions.defaults().withMaxRecordedBytesPerSnapshot(Long.MAX_VALUE));
    receiver.startSnapshot(1);
    double nanos = loop(sender, receiver);
    System.out.printf("send+onData, one snapshot recording: %.1f ns per message%n", nanos);
    receiver.onMarker("x", 1, 0);
    receiver.onMarker("s", 1, CALLS);
    assertThat(receiver.inFlight()).isEmpty();
    assertThat(sink.completed).hasSize(1);
    LocalSnapshot cut = sink.completed.get(0).cut();
    List<InTransitMessage> recorded = cut.recorded("s");
    assertThat(recorded).as("messages recorded from s").hasSize(CALLS);
    assertThat(recorded.get(0).seq()).isEqualTo(1);
    assertThat(recorded.get(CALLS - 1).seq()).isEqualTo(CALLS);
    assertThat(cut.recorded("x")).isEmpty();
    assertThat(cut.inFlightMessages()).isEqualTo(CALLS);
  }
}
