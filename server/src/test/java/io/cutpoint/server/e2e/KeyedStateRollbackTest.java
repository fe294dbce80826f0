package io.cutpoint.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.cutpoint.api.v1.RollbackRequest;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.TriggerSnapshotRequest;
import io.cutpoint.client.MessageHandler;
import io.cutpoint.client.StateHandler;
import io.cutpoint.client.Worker;
import io.cutpoint.client.chunks.KeyedState;
import io.cutpoint.client.engine.CapturedState;
import io.cutpoint.client.session.CoordinatorSession;
import io.cutpoint.client.session.SessionOptions;
import io.cutpoint.server.testing.InProcessCoordinator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two workers hand their states over as sorted entries ({@link KeyedState}) to a real coordinator:
 * a snapshot after a few entries changed uploads a small part of the states, and a rollback gives
 * each worker back the very entries it had at the snapshot.
 */
class KeyedStateRollbackTest {

  @TempDir Path dir;

  /** A table of 4,000 entries of 1 KiB; the worker's loop owns it. */
  private static final class Table implements StateHandler, MessageHandler {
    TreeMap<String, byte[]> entries = new TreeMap<>();
    final Random random;

    Table(long seed) {
      random = new Random(seed);
      for (int i = 0; i < 4_000; i++) {
        entries.put(String.format("key-%05d", i), value());
      }
    }

    byte[] value() {
      byte[] v = new byte[1024];
      random.nextBytes(v);
      return v;
    }

    /** Replaces {@code n} entries with new arrays (never writes into a captured one). */
    void change(int n) {
      for (int i = 0; i < n; i++) {
        entries.put(String.format("key-%05d", random.nextInt(4_000)), value());
      }
    }

    @Override
    public CapturedState captureState(long snapshotId) {
      return CapturedState.keyed(
          KeyedState.of(entries), CapturedState.Activity.UNSPECIFIED, List.of());
    }

    @Override
    public byte[] capture() {
      return KeyedState.of(entries).toBytes();
    }

    @Override
    public void restore(byte[] state) {
      entries = new TreeMap<>(KeyedState.decode(state));
    }

    @Override
    public void onMessage(String from, long seq, byte[] payload) {}
  }

  private static <T> T onLoop(Worker w, java.util.function.Supplier<T> read) {
    CompletableFuture<T> out = new CompletableFuture<>();
    w.execute(() -> out.complete(read.get()));
    return out.orTimeout(10, TimeUnit.SECONDS).join();
  }

  private static Map<String, byte[]> copy(SortedMap<String, byte[]> m) {
    return new TreeMap<>(m);
  }

  @Test
  void aSnapshotOfAFewChangedEntriesUploadsLittleAndARollbackRestoresEveryEntry() throws Exception {
    List<Worker> workers = new ArrayList<>();
    List<CoordinatorSession> sessions = new ArrayList<>();
    Map<String, Table> tables = new TreeMap<>();
    try (InProcessCoordinator coordinator =
        new InProcessCoordinator(InProcessCoordinator.config(dir).build())) {
      try {
        run(coordinator, workers, sessions, tables);
      } finally {
        sessions.forEach(CoordinatorSession::close);
        workers.forEach(Worker::close);
      }
    }
  }

  private void run(
      InProcessCoordinator coordinator,
      List<Worker> workers,
      List<CoordinatorSession> sessions,
      Map<String, Table> tables)
      throws Exception {
    {
      for (String id : List.of("a", "b")) {
        String peer = id.equals("a") ? "b" : "a";
        Table table = new Table(id.hashCode());
        Worker w =
            Worker.builder(id)
                .outgoing(peer)
                .incoming(peer)
                .stateHandler(table)
                .messageHandler(table)
                .build()
                .start();
        workers.add(w);
        tables.put(id, table);
        CoordinatorSession s =
            new CoordinatorSession(
                coordinator.channel,
                w,
                SessionOptions.defaults().withCloseTimeout(Duration.ofSeconds(2)));
        sessions.add(s);
        s.start().joined().get(20, TimeUnit.SECONDS);
      }
      SnapshotManifest first = snapshot(coordinator);
      double uploadedFirst = uploaded(coordinator);
      assertThat(uploadedFirst).isGreaterThan(2 * 4_000 * 1024);

      for (int i = 0; i < 2; i++) {
        Worker w = workers.get(i);
        Table t = tables.get(i == 0 ? "a" : "b");
        onLoop(
            w,
            () -> {
              t.change(5);
              return null;
            });
      }
      SnapshotManifest second = snapshot(coordinator);
      double uploadedSecond = uploaded(coordinator) - uploadedFirst;
      assertThat(uploadedSecond)
          .as("5 changed entries per worker: at most a chunk each, not the states")
          .isPositive()
          .isLessThanOrEqualTo(10.0 * io.cutpoint.client.chunks.ContentChunker.defaults().maxSize())
          .isLessThan(0.4 * second.getTotalStateBytes());
      assertThat(second.getPiecesList()).hasSize(2);
      for (var piece : second.getPiecesList()) {
        var t = piece.getMeta().getTimeline(); // microseconds before the header was sent
        assertThat(t.hasChunksFoundMicros()).as("cut off the loop: the trace shows how").isTrue();
        // cut from the capture on, maybe before the local snapshot completed; used after it
        assertThat(t.getCapturedMicros()).isGreaterThanOrEqualTo(t.getChunkingBeganMicros());
        assertThat(t.getChunkingBeganMicros()).isGreaterThanOrEqualTo(t.getChunkedMicros());
        assertThat(t.getChunkedMicros()).isGreaterThanOrEqualTo(t.getChunksFoundMicros());
        assertThat(t.getCompletedMicros()).isGreaterThanOrEqualTo(t.getChunksFoundMicros());
      }
      Map<String, Map<String, byte[]>> atSecond = new TreeMap<>();
      for (int i = 0; i < 2; i++) {
        Table t = tables.get(i == 0 ? "a" : "b");
        atSecond.put(i == 0 ? "a" : "b", onLoop(workers.get(i), () -> copy(t.entries)));
        onLoop(
            workers.get(i),
            () -> {
              t.change(300);
              return null;
            });
      }

      coordinator
          .admin()
          .rollback(
              RollbackRequest.newBuilder()
                  .setSnapshotId(second.getSnapshotId())
                  .setWait(true)
                  .build());
      for (int i = 0; i < 2; i++) {
        String id = i == 0 ? "a" : "b";
        Table t = tables.get(id);
        Map<String, byte[]> now = onLoop(workers.get(i), () -> copy(t.entries));
        assertThat(now.keySet()).containsExactlyElementsOf(atSecond.get(id).keySet());
        atSecond.get(id).forEach((k, v) -> assertThat(now.get(k)).as(id + " " + k).isEqualTo(v));
      }
      assertThat(first.getSnapshotId()).isLessThan(second.getSnapshotId());
    }
  }

  private static SnapshotManifest snapshot(InProcessCoordinator coordinator) {
    SnapshotManifest m =
        coordinator
            .admin()
            .triggerSnapshot(TriggerSnapshotRequest.newBuilder().setWait(true).build())
            .getManifest();
    assertThat(m.getStatus()).isEqualTo(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE);
    return m;
  }

  private static double uploaded(InProcessCoordinator coordinator) {
    return coordinator.registry.get("cutpoint.state.uploaded").counter().count();
  }
}
