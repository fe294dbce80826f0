package io.cutpoint.storage;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.cut.ChannelId;
import io.cutpoint.cut.InTransitMessage;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * A snapshot of three workers in a ring {@code a -> b -> c -> a}, with deterministic state bytes
 * and recordings derived from the snapshot id, so that a reader (also in another JVM) can check
 * what it reads against what was written.
 */
final class SnapshotFixture {
  static final List<String> WORKERS = List.of("a", "b", "c");
  static final List<ChannelId> CHANNELS =
      List.of(ChannelId.of("a", "b"), ChannelId.of("b", "c"), ChannelId.of("c", "a"));

  final long id;
  final int chunkSize;
  final Map<String, byte[]> states = new LinkedHashMap<>();
  final Map<ChannelId, List<InTransitMessage>> recordings = new LinkedHashMap<>();

  SnapshotFixture(long id, int stateBytes, int chunkSize) {
    this.id = id;
    this.chunkSize = chunkSize;
    Random random = new Random(id);
    for (String w : WORKERS) {
      byte[] state = new byte[stateBytes + random.nextInt(chunkSize)];
      random.nextBytes(state);
      states.put(w, state);
    }
    for (ChannelId c : CHANNELS) {
      List<InTransitMessage> messages = new ArrayList<>();
      long first = 1 + random.nextInt(100);
      // b->c always records two batches; the others may record nothing
      int count = c.equals(CHANNELS.get(1)) ? 4 : random.nextInt(5);
      for (int i = 0; i < count; i++) {
        byte[] payload = new byte[1 + random.nextInt(64)];
        random.nextBytes(payload);
        messages.add(new InTransitMessage(first + i, payload));
      }
      recordings.put(c, messages);
    }
  }

  SnapshotManifest pending() {
    Topology.Builder topology = Topology.newBuilder();
    for (String w : WORKERS) {
      WorkerDecl.Builder decl = WorkerDecl.newBuilder().setWorkerId(w);
      for (ChannelId c : CHANNELS) {
        if (c.from().equals(w)) {
          decl.addOutgoing(c.to());
        }
        if (c.to().equals(w)) {
          decl.addIncoming(c.from());
        }
      }
      topology.addWorkers(decl);
    }
    return SnapshotManifest.newBuilder()
        .setSnapshotId(id)
        .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
        .setEpoch(1)
        .setStartedAtUnixMs(1_700_000_000_000L + id)
        .addInitiators("a")
        .setTopology(topology)
        .build();
  }

  SnapshotManifest complete() {
    return pending().toBuilder()
        .setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE)
        .setFinishedAtUnixMs(1_700_000_001_000L + id)
        .build();
  }

  LocalSnapshotMeta meta(String worker) {
    byte[] state = states.get(worker);
    return LocalSnapshotMeta.newBuilder()
        .setSnapshotId(id)
        .setWorkerId(worker)
        .setEpoch(1)
        .setStateBytes(state.length)
        .setStateCrc32C(crc(state))
        .build();
  }

  /** Writes every piece (metadata, chunks, recordings in two batches when possible). */
  void writePieces(SnapshotStore store) {
    WORKERS.forEach(w -> writeWorker(store, w));
    writeChannels(store);
  }

  void writeWorker(SnapshotStore store, String w) {
    store.putWorkerMeta(id, meta(w));
    byte[] state = states.get(w);
    for (int i = 0, index = 0; i < state.length; i += chunkSize, index++) {
      byte[] chunk = java.util.Arrays.copyOfRange(state, i, Math.min(state.length, i + chunkSize));
      store.putStateChunk(id, w, index, chunk, crc(chunk));
    }
  }

  void writeChannels(SnapshotStore store) {
    for (Map.Entry<ChannelId, List<InTransitMessage>> e : recordings.entrySet()) {
      List<InTransitMessage> all = e.getValue();
      int half = all.size() / 2;
      store.putChannelRecording(id, e.getKey(), all.subList(0, half));
      store.putChannelRecording(id, e.getKey(), all.subList(half, all.size()));
    }
  }

  /** Writes and commits the whole snapshot. */
  void store(SnapshotStore store) {
    store.createPending(pending());
    writePieces(store);
    store.commit(complete());
  }

  byte[] readState(SnapshotStore store, String worker) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    store.readState(id, worker, out::writeBytes);
    return out.toByteArray();
  }

  static int crc(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return (int) crc.getValue();
  }
}
