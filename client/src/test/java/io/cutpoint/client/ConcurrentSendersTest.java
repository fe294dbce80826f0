package io.cutpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cutpoint.client.engine.CompletedLocalSnapshot;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.Cut;
import io.cutpoint.cut.CutVerifier;
import io.cutpoint.cut.LocalSnapshot;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Sends from several application threads at once, not from handlers, while snapshots run: cuts stay
 * consistent, and the state each worker captures (messages received per peer) matches the counters
 * recorded with it, so capture is atomic with respect to deliveries.
 */
class ConcurrentSendersTest {

  /** Counts received messages per peer; state = those counts. Event thread only. */
  static final class Counting implements StateHandler, MessageHandler {
    final Map<String, Long> received = new HashMap<>();

    @Override
    public void onMessage(String from, long seq, byte[] payload) {
      received.merge(from, 1L, Long::sum);
    }

    @Override
    public byte[] capture() {
      ByteBuffer b = ByteBuffer.allocate(16 * received.size() + 4).putInt(received.size());
      received.forEach((peer, n) -> b.putLong(peer.charAt(0)).putLong(n));
      return b.array();
    }

    @Override
    public void restore(byte[] state) {
      throw new UnsupportedOperationException();
    }

    static Map<String, Long> decode(byte[] state) {
      ByteBuffer b = ByteBuffer.wrap(state);
      Map<String, Long> out = new HashMap<>();
      for (int i = b.getInt(); i > 0; i--) {
        out.put(String.valueOf((char) b.getLong()), b.getLong());
      }
      return out;
    }
  }

  @Test
  void sendsFromManyThreadsDuringSnapshotsGiveConsistentCutsWithMatchingState() throws Exception {
    List<String> ids = List.of("a", "b", "c");
    Map<String, Worker> workers = new HashMap<>();
    Map<Long, List<CompletedLocalSnapshot>> pieces = new ConcurrentHashMap<>();
    ExecutorService senders = Executors.newFixedThreadPool(6);
    AtomicBoolean running = new AtomicBoolean(true);
    List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    try {
      for (String id : ids) {
        Counting app = new Counting();
        List<String> peers = ids.stream().filter(p -> !p.equals(id)).toList();
        Worker w =
            Worker.builder(id)
                .outgoing(peers)
                .incoming(peers)
                .stateHandler(app)
                .channelOptions(ChannelOptions.defaults().withMaxUnacked(4_096, 1 << 20))
                .messageHandler(app)
                .build();
        w.setSnapshotListener(
            new WorkerControl.LocalSnapshotListener() {
              @Override
              public void completed(CompletedLocalSnapshot s) {
                pieces
                    .computeIfAbsent(
                        s.cut().snapshotId(),
                        k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(s);
              }

              @Override
              public void failed(long snapshotId, String reason) {
                failures.add(id + " failed snapshot " + snapshotId + ": " + reason);
              }
            });
        workers.put(id, w.start());
      }
      Map<String, String> addresses = new HashMap<>();
      workers.forEach((id, w) -> addresses.put(id, w.channelAddress()));
      workers.values().forEach(w -> w.updatePeers(addresses));

      List<Future<?>> jobs = new ArrayList<>();
      for (String id : ids) {
        for (int t = 0; t < 2; t++) {
          int thread = t;
          jobs.add(
              senders.submit(
                  () -> {
                    Worker w = workers.get(id);
                    List<String> peers = new ArrayList<>(w.outgoing());
                    byte[] payload = new byte[24];
                    for (long i = 0; running.get() && i < 300_000; i++) {
                      w.send(peers.get((int) ((i + thread) % peers.size())), payload);
                    }
                  }));
        }
      }
      Set<ChannelId> channels = new java.util.TreeSet<>();
      ids.forEach(
          f ->
              ids.stream()
                  .filter(t -> !t.equals(f))
                  .forEach(t -> channels.add(ChannelId.of(f, t))));
      for (long id = 1; id <= 10; id++) {
        long sid = id;
        workers.get(ids.get((int) (id % 3))).startSnapshot(id);
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> pieces.getOrDefault(sid, List.of()).size() == 3);
        List<LocalSnapshot> cutPieces =
            pieces.get(sid).stream().map(CompletedLocalSnapshot::cut).toList();
        assertThat(CutVerifier.verify(Cut.of(sid, Set.copyOf(ids), channels, cutPieces))).isEmpty();
        for (CompletedLocalSnapshot s : pieces.get(sid)) {
          Map<String, Long> state = Counting.decode(s.state().state());
          s.cut()
              .received()
              .forEach(
                  (peer, n) ->
                      assertThat(state.getOrDefault(peer, 0L))
                          .as(
                              "%s's state vs counter from %s in cut %d",
                              s.cut().workerId(), peer, sid)
                          .isEqualTo(n));
        }
      }
      long inFlight =
          pieces.values().stream()
              .flatMap(List::stream)
              .mapToLong(s -> s.cut().inFlightMessages())
              .sum();
      assertThat(inFlight).as("messages recorded in transit").isPositive();
      assertThat(failures).as("local snapshots that failed").isEmpty();
      running.set(false);
      for (Future<?> job : jobs) {
        job.get(60, TimeUnit.SECONDS); // rethrows what send threw on a sender thread
      }
    } finally {
      running.set(false);
      senders.shutdown();
      senders.awaitTermination(30, TimeUnit.SECONDS);
      workers.values().forEach(Worker::close);
    }
  }
}
