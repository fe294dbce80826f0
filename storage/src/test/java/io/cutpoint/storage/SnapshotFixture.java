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

  /**
   * Snapshot {@code id} whose workers' states are 16 chunks of {@code chunkSize} bytes, the same
   * for every worker and snapshot but for chunk {@code changedChunk}, which is the worker's and the
   * snapshot's own: a content-addressed store keeps most of them once.
   */
  static SnapshotFixture shared(long id, int changedChunk, int chunkSize) {
    SnapshotFixture f = new SnapshotFixture(id, 16 * chunkSize - 1, chunkSize);
    for (String w : WORKERS) {
      byte[] state = new byte[16 * chunkSize];
      new Random(42).nextBytes(state);
      byte[] fresh = new byte[chunkSize];
      new Random(id * 31 + w.hashCode()).nextBytes(fresh);
      System.arraycopy(fresh, 0, state, changedChunk * chunkSize, chunkSize);
      f.states.put(w, state);
    }
    return f;
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

  /** The manifest of this snapshot ended ABORTED for {@code reason}. */
  SnapshotManifest aborted(String reason) {
    return pending().toBuilder()
        .setStatus(SnapshotStatus.SNAPSHOT_STATUS_ABORTED)
        .setReason(reason)
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

  /** Creates the snapshot and ends it ABORTED for {@code reason}, before any piece arrives. */
  void abort(SnapshotStore store, String reason) {
    store.createPending(pending());
    store.finish(aborted(reason));
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

  /**
   * A worker's metadata for its state cut into content-addressed chunks of {@code chunkSize} bytes
   * (the last one shorter), each named by its SHA-256.
   */
  LocalSnapshotMeta contentMeta(String worker) {
    LocalSnapshotMeta.Builder meta = meta(worker).toBuilder();
    for (byte[] chunk : chunks(worker)) {
      meta.addContent(
          io.cutpoint.api.v1.ContentChunk.newBuilder()
              .setSha256(com.google.protobuf.ByteString.copyFrom(io.cutpoint.api.Sha256.of(chunk)))
              .setLength(chunk.length)
              .setCrc32C(crc(chunk)));
    }
    return meta.build();
  }

  List<byte[]> chunks(String worker) {
    byte[] state = states.get(worker);
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < state.length; i += chunkSize) {
      out.add(java.util.Arrays.copyOfRange(state, i, Math.min(state.length, i + chunkSize)));
    }
    return out;
  }

  /**
   * Writes a worker's piece content-addressed, as the coordinator does: asks the store which chunks
   * it holds, stores the others, then the metadata.
   *
   * @return the number of chunks stored (those the store did not hold)
   */
  int writeWorkerContent(SnapshotStore store, String w) {
    LocalSnapshotMeta meta = contentMeta(w);
    List<com.google.protobuf.ByteString> hashes = new ArrayList<>();
    meta.getContentList().forEach(c -> hashes.add(c.getSha256()));
    boolean[] held = store.holdChunks(id, hashes);
    List<byte[]> chunks = chunks(w);
    int sent = 0;
    for (int i = 0; i < chunks.size(); i++) {
      if (!held[i]) {
        store.putContentChunk(id, w, i, hashes.get(i), chunks.get(i), crc(chunks.get(i)));
        sent++;
      }
    }
    store.putWorkerMeta(id, meta);
    return sent;
  }

  /** Writes and commits the whole snapshot with content-addressed states. */
  void storeContent(SnapshotStore store) {
    store.createPending(pending());
    WORKERS.forEach(w -> writeWorkerContent(store, w));
    writeChannels(store);
    store.commit(complete());
  }

  static int crc(byte[] data) {
    CRC32C crc = new CRC32C();
    crc.update(data);
    return (int) crc.getValue();
  }
}
