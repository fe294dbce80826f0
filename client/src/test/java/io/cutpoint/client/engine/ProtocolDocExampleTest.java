package io.cutpoint.client.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import org.junit.jupiter.api.Test;

/** The example of src/site/markdown/protocol.md, kept compiling and correct. */
class ProtocolDocExampleTest {

  /** What a transport would carry: a data message or a marker. */
  record Frame(
      String from, String to, boolean marker, long seqOrSnapshot, long sentCount, byte[] payload) {}

  @Test
  void theDocumentedExampleWorks() {
    Queue<Frame> wire = new ArrayDeque<>(); // one FIFO for both channels is still FIFO per channel
    List<CompletedLocalSnapshot> done = new ArrayList<>();
    Map<String, SnapshotEngine> engines = new java.util.HashMap<>();

    for (String id : List.of("a", "b")) {
      String peer = id.equals("a") ? "b" : "a";
      EngineOutput output =
          new EngineOutput() {
            @Override
            public void sendMarker(String to, long snapshotId, long sentCount) {
              wire.add(new Frame(id, to, true, snapshotId, sentCount, null));
            }

            @Override
            public void deliver(String from, long seq, byte[] payload) {
              // hand the message to the application here
            }

            @Override
            public void completed(CompletedLocalSnapshot snapshot) {
              done.add(snapshot); // upload it to the coordinator
            }

            @Override
            public void failed(long snapshotId, String reason) {
              // report it to the coordinator
            }
          };
      engines.put(
          id,
          new SnapshotEngine(
              id,
              List.of(peer),
              List.of(peer),
              snapshotId -> CapturedState.of(("state of " + id).getBytes()),
              output,
              EngineOptions.defaults()));
    }

    SnapshotEngine a = engines.get("a");
    long seq = a.send("b", "hello".getBytes()); // 1
    wire.add(new Frame("a", "b", false, seq, 0, "hello".getBytes()));
    engines.get("b").startSnapshot(42); // b initiates: marker to a, records channel a->b

    while (!wire.isEmpty()) {
      Frame f = wire.poll();
      SnapshotEngine to = engines.get(f.to());
      if (f.marker()) {
        to.onMarker(f.from(), f.seqOrSnapshot(), f.sentCount());
      } else {
        to.onData(f.from(), f.seqOrSnapshot(), f.payload());
      }
    }

    assertThat(done).hasSize(2);
    CompletedLocalSnapshot ofB =
        done.stream().filter(d -> d.cut().workerId().equals("b")).findFirst().orElseThrow();
    assertThat(ofB.cut().recorded("a"))
        .extracting(m -> m.seq())
        .containsExactly(1L); // "hello" was in flight
    assertThat(ofB.cut().initiator()).isTrue();
  }
}
