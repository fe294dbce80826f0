package io.cutpoint.ops.bench;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.api.v1.Marker;
import io.cutpoint.ops.local.ScratchDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * What this machine allows, measured in the same run as the snapshots, with none of Cutpoint's
 * logic: one marker frame on an open {@link RawChannel} stream (send to the sink's receipt, one
 * clock), a unary echo call back to back and the same call after {@link #IDLE_MILLIS} of quiet (as
 * a periodic snapshot meets its threads: parked, to be woken), a synced RocksDB write batch of 1
 * KiB back to back and after the same quiet (as a periodic snapshot's commit meets the disk: on a
 * virtual disk the first flush after a pause can cost several times a flush that follows another),
 * the bytes per second of one loopback stream of 1 MiB frames, and RocksDB's ingest rate for 1 MiB
 * values (each in its own batch, as the store writes pieces, made durable by one WAL sync at the
 * end). Each latency series stops early after 3 s of measuring. The command runs this phase after
 * the latency sweep, so that gRPC, Netty and protobuf are as compiled by the JIT as they are for
 * most snapshots; each series still begins with as many unmeasured samples as it measures (the
 * stream: one unmeasured window).
 */
final class LimitsPhase {

  /** The raw measurements; latencies in milliseconds. */
  record Result(
      Samples markerHop,
      Samples unary,
      Samples unaryAfterIdle,
      Samples syncedCommit,
      Samples syncedCommitAfterIdle,
      double streamBytesPerSecond,
      double ingestBytesPerSecond) {}

  private static final int CHUNK = 1 << 20;

  /** The value of each synced write: about a small snapshot's manifest. */
  private static final byte[] MANIFEST = new byte[1024];

  /** The quiet before each call of the idle series: longer than an idle snapshot takes. */
  static final long IDLE_MILLIS = 5;

  /** Time budget of each measured latency series (warm-ups are not cut). */
  private static final long BUDGET_NANOS = 3_000_000_000L;

  private LimitsPhase() {}

  static Result run(BenchPlan plan, Consumer<String> progress) {
    progress.accept("limits: raw marker hop, unary call, synced commit, stream and ingest rates");
    int n = plan.limitSamples();
    Samples hop = new Samples();
    Samples unary = new Samples();
    Samples afterIdle = new Samples();
    double stream;
    try (RawChannel raw = new RawChannel()) {
      markerHops(raw, n, null);
      markerHops(raw, n, hop);
      byte[] ping = new byte[64];
      long deadline = Long.MAX_VALUE;
      for (int i = -n; i < n && System.nanoTime() < deadline; i++) {
        if (i == 0) {
          deadline = System.nanoTime() + BUDGET_NANOS;
        }
        long t0 = System.nanoTime();
        raw.echo(ping);
        if (i >= 0) {
          unary.add((System.nanoTime() - t0) / 1e6);
        }
      }
      long idleDeadline = System.nanoTime() + BUDGET_NANOS;
      for (int i = 0; i < Math.max(1, n / 2) && System.nanoTime() < idleDeadline; i++) {
        Pause.millis(IDLE_MILLIS);
        long t0 = System.nanoTime();
        raw.echo(ping);
        afterIdle.add((System.nanoTime() - t0) / 1e6);
      }
      stream = streamRate(raw, plan.windowMillis());
    }
    Samples commit = new Samples();
    Samples commitAfterIdle = new Samples();
    double ingest;
    Path dir = tempDir(plan);
    try {
      RocksDB.loadLibrary();
      try (Options options = new Options().setCreateIfMissing(true);
          RocksDB db = RocksDB.open(options, dir.toString());
          WriteOptions synced = new WriteOptions().setSync(true);
          WriteOptions unsynced = new WriteOptions().setSync(false)) {
        long deadline = Long.MAX_VALUE;
        for (int i = -n / 10; i < n / 2 && System.nanoTime() < deadline; i++) {
          if (i == 0) {
            deadline = System.nanoTime() + BUDGET_NANOS;
          }
          double ms = syncedWrite(db, synced, "manifest-" + i);
          if (i >= 0) {
            commit.add(ms);
          }
        }
        long idleDeadline = System.nanoTime() + BUDGET_NANOS;
        for (int i = 0; i < Math.max(1, n / 4) && System.nanoTime() < idleDeadline; i++) {
          Pause.millis(IDLE_MILLIS);
          commitAfterIdle.add(syncedWrite(db, synced, "after-idle-" + i));
        }
        ingest = ingestRate(db, unsynced, plan.limitIngestMib());
      }
    } catch (RocksDBException e) {
      throw new IllegalStateException("raw RocksDB measurement failed: " + e.getMessage(), e);
    } finally {
      ScratchDirs.delete(dir);
    }
    return new Result(hop, unary, afterIdle, commit, commitAfterIdle, stream, ingest);
  }

  /** One frame holding one marker per sample; the hop ends when the sink has it. */
  private static void markerHops(RawChannel raw, int count, Samples into) {
    try (RawChannel.Source source = raw.open()) {
      long stop = System.nanoTime() + (into == null ? 10 * BUDGET_NANOS : BUDGET_NANOS);
      for (int i = 1; i <= count && System.nanoTime() < stop; i++) {
        long before = raw.frames();
        long t0 = System.nanoTime();
        source.send(
            Frame.newBuilder()
                .setEpoch(1)
                .addItems(
                    Item.newBuilder()
                        .setPosition(i)
                        .setMarker(Marker.newBuilder().setSnapshotId(i).setSentCount(i))));
        long deadline = t0 + 10_000_000_000L;
        while (raw.frames() == before) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("raw marker frame not received within 10 s");
          }
          LockSupport.parkNanos(20_000); // the receipt time is taken by the sink, not by this loop
        }
        if (into != null) {
          into.add((raw.lastFrameNanos() - t0) / 1e6);
        }
      }
    }
  }

  /** Bytes per second through one stream of 1 MiB frames, after a warm-up window. */
  private static double streamRate(RawChannel raw, long windowMillis) {
    ByteString payload = ByteString.copyFrom(new byte[CHUNK]);
    long warm = windowMillis;
    try (RawChannel.Source source = raw.open()) {
      long start = System.nanoTime();
      long from = -1;
      long t0 = 0;
      long end = start + (warm + windowMillis) * 1_000_000;
      for (long k = 1; System.nanoTime() < end; k++) {
        if (from < 0 && System.nanoTime() - start >= warm * 1_000_000) {
          from = raw.bytes();
          t0 = System.nanoTime();
        }
        source.send(
            Frame.newBuilder()
                .setEpoch(1)
                .addItems(
                    Item.newBuilder()
                        .setPosition(k)
                        .setData(DataMessage.newBuilder().setSeq(k).setPayload(payload))));
      }
      long to = raw.bytes();
      return from < 0 ? Double.NaN : (to - from) * 1e9 / (System.nanoTime() - t0);
    }
  }

  /** One synced batch of a 1 KiB value under {@code key}: its time in milliseconds. */
  private static double syncedWrite(RocksDB db, WriteOptions synced, String key)
      throws RocksDBException {
    long t0 = System.nanoTime();
    try (WriteBatch b = new WriteBatch()) {
      b.put(key.getBytes(StandardCharsets.UTF_8), MANIFEST);
      db.write(synced, b);
    }
    return (System.nanoTime() - t0) / 1e6;
  }

  /** {@code mib} values of 1 MiB, one batch each, then one WAL sync: bytes per second. */
  private static double ingestRate(RocksDB db, WriteOptions unsynced, int mib)
      throws RocksDBException {
    byte[] chunk = new byte[CHUNK];
    new Random(1).nextBytes(chunk); // not compressible to nothing
    long t0 = System.nanoTime();
    for (int i = 0; i < mib; i++) {
      try (WriteBatch b = new WriteBatch()) {
        b.put(("piece-" + i).getBytes(StandardCharsets.UTF_8), chunk);
        db.write(unsynced, b);
      }
    }
    db.syncWal();
    return (long) mib * CHUNK * 1e9 / (System.nanoTime() - t0);
  }

  private static Path tempDir(BenchPlan plan) {
    try {
      Path parent = plan.dataDir();
      return parent == null
          ? Files.createTempDirectory("cutpoint-bench-limits-")
          : Files.createTempDirectory(Files.createDirectories(parent), "cutpoint-bench-limits-");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create a directory for the raw RocksDB measurement", e);
    }
  }
}
