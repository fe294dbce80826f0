package io.cutpoint.ops.bench;

import com.google.protobuf.UnsafeByteOperations;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.api.v1.RollbackResponse;
import io.cutpoint.ops.local.ScratchDirs;
import io.cutpoint.storage.SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Item 4: time from a rollback request to every worker resumed, next to the time to read the same
 * state bytes from the store (one thread per worker, as the rollback's downloads run) and ship them
 * over loopback gRPC in 1 MiB frames (median of three runs up to 128 MiB, one above), each also as
 * the process's CPU time, steadier than wall time on a shared machine; item 5's peak heap is
 * measured around it.
 */
final class RecoveryPhase {

  /**
   * Each worker's state is random bytes of its own: the store then holds, reads and ships every
   * byte of the total, as read-and-ship does, and no worker shares a content chunk with another.
   */
  private static final long SEED = 0x7265636f76657279L;

  /**
   * One total state size; {@code skipped} says why it was not measured (else null). The CPU times
   * are the whole process's (p50, ms), during the rollbacks and during read-and-ship.
   */
  record Row(
      long totalBytes,
      int workers,
      double rollbackMillis,
      double serverMillis,
      double baselineMillis,
      String skipped,
      double localMillis,
      double rollbackCpuMillis,
      double baselineCpuMillis) {
    Row(
        long totalBytes,
        int workers,
        double rollbackMillis,
        double serverMillis,
        double baselineMillis,
        String skipped) {
      this(totalBytes, workers, rollbackMillis, serverMillis, baselineMillis, skipped, 0, 0, 0);
    }

    /** The same row with a local-recovery rollback's time. */
    Row withLocal(double localMillis) {
      return new Row(
          totalBytes,
          workers,
          rollbackMillis,
          serverMillis,
          baselineMillis,
          skipped,
          localMillis,
          rollbackCpuMillis,
          baselineCpuMillis);
    }

    double ratio() {
      return baselineMillis == 0 ? Double.NaN : rollbackMillis / baselineMillis;
    }

    /** CPU of a rollback over that of read-and-ship (NaN when not measured). */
    double cpuRatio() {
      return baselineCpuMillis <= 0 || rollbackCpuMillis <= 0
          ? Double.NaN
          : rollbackCpuMillis / baselineCpuMillis;
    }

    /** A local-recovery rollback over a remote one (NaN when not measured). */
    double localRatio() {
      return localMillis == 0 || rollbackMillis == 0 ? Double.NaN : localMillis / rollbackMillis;
    }
  }

  /**
   * Result of the phase: rows, the peak heap across the rollbacks by download, and the peak heap
   * across the local-copy clusters (measured after them, apart).
   */
  record Result(List<Row> rows, long peakHeapBytes, long localPeakHeapBytes) {}

  private RecoveryPhase() {}

  static Result run(BenchPlan plan, Consumer<String> progress) {
    List<Row> remote = new ArrayList<>();
    HeapPeak.reset();
    for (int mib : plan.recoveryMib()) {
      remote.add(byDownload(plan, (long) mib << 20, progress));
    }
    long peak = HeapPeak.peakBytes();
    // Local copies on clusters of their own, after every download's: the peak above stays that of
    // the rollbacks by download alone, and the local copies' peak is measured apart.
    HeapPeak.reset();
    List<Row> rows = new ArrayList<>();
    for (Row r : remote) {
      if (r.skipped() != null) {
        rows.add(r);
        continue;
      }
      int mib = (int) (r.totalBytes() >> 20);
      progress.accept("recovery: " + mib + " MiB over " + r.workers() + " workers, local copies");
      int perWorker = (int) (r.totalBytes() / r.workers());
      double local = localRollback(plan, r.workers(), perWorker, repeats(r.totalBytes()));
      rows.add(r.withLocal(local));
      System.gc();
    }
    return new Result(rows, peak, HeapPeak.peakBytes());
  }

  /** Small states: the median of three, as one run is at the mercy of the scheduler. */
  private static int repeats(long total) {
    return total <= (128L << 20) ? 3 : 1;
  }

  /** The rollback by download of {@code total} bytes over the workers, or why it was skipped. */
  private static Row byDownload(BenchPlan plan, long total, Consumer<String> progress) {
    int workers = plan.recoveryWorkers();
    // The workers hold the state, the restore assembles a second copy before it replaces the
    // first.
    long needed = 3 * total + (256L << 20);
    if (needed > HeapPeak.maxHeapBytes()) {
      return new Row(
          total,
          workers,
          0,
          0,
          0,
          "needs about "
              + (needed >> 20)
              + " MiB of heap, max is "
              + (HeapPeak.maxHeapBytes() >> 20)
              + " MiB (run with a larger -Xmx)");
    }
    progress.accept("recovery: " + (total >> 20) + " MiB over " + workers + " workers");
    int perWorker = (int) (total / workers);
    Row row;
    try (BenchCluster c =
        BenchCluster.start(
            Layout.ring(workers),
            plan,
            id -> new BenchApp(StateEdit.random(perWorker, SEED + id.hashCode())))) {
      row = remote(c, total, workers, repeats(total));
    }
    System.gc();
    return row;
  }

  /** Rollbacks by download of one snapshot of {@code c}, next to read-and-ship of its bytes. */
  private static Row remote(BenchCluster c, long total, int workers, int repeats) {
    BenchCoordinator.Taken t = c.coordinator().snapshot();
    if (!t.complete()) {
      return new Row(
          total, workers, 0, 0, 0, "snapshot did not complete: " + t.manifest().getReason());
    }
    long id = t.manifest().getSnapshotId();
    Samples baseline = new Samples();
    Samples rollback = new Samples();
    Samples server = new Samples();
    Samples baselineCpu = new Samples();
    Samples rollbackCpu = new Samples();
    String failure = null;
    for (int i = 0; i < repeats && failure == null; i++) {
      Shipped shipped = readAndShip(c, id);
      baseline.add(shipped.millis());
      baselineCpu.add(shipped.cpuMillis());
      long cpu = ProcessCpu.nanos();
      long start = System.nanoTime();
      RollbackResponse r = c.coordinator().rollback(id);
      rollback.add((System.nanoTime() - start) / 1e6);
      rollbackCpu.add((ProcessCpu.nanos() - cpu) / 1e6);
      server.add(r.getDurationMicros() / 1000.0);
      if (!r.getCompleted()) {
        failure = "rollback did not complete";
      }
    }
    return new Row(
        total,
        workers,
        rollback.p50(),
        server.p50(),
        baseline.p50(),
        failure,
        0,
        rollbackCpu.p50(),
        baselineCpu.p50());
  }

  /**
   * The p50 of rollbacks to the newest snapshot of the same cluster whose workers keep local copies
   * ({@code Worker.Builder.localRecovery}), once every worker has reported its copy to the
   * coordinator (on disk, in a heartbeat); 0 if one did not complete.
   */
  private static double localRollback(BenchPlan plan, int workers, int perWorker, int repeats) {
    java.nio.file.Path dir;
    try {
      dir = java.nio.file.Files.createTempDirectory("cutpoint-bench-local");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    try (BenchCluster c =
        BenchCluster.start(
            Layout.ring(workers),
            plan,
            id -> new BenchApp(StateEdit.random(perWorker, SEED + id.hashCode())),
            BenchCoordinator.ROCKSDB,
            true,
            dir)) {
      BenchCoordinator.Taken t = c.coordinator().snapshot();
      if (!t.complete()) {
        return 0;
      }
      long id = t.manifest().getSnapshotId();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
      while (!c.coordinator().localCopies().values().stream().allMatch(s -> s == id)
          && System.nanoTime() < deadline) {
        Pause.millis(5);
      }
      Samples local = new Samples();
      for (int i = 0; i < repeats; i++) {
        long start = System.nanoTime();
        RollbackResponse r = c.coordinator().rollback(id);
        if (!r.getCompleted()) {
          return 0;
        }
        local.add((System.nanoTime() - start) / 1e6);
      }
      return local.p50();
    } finally {
      ScratchDirs.delete(dir);
    }
  }

  /** The wall and process CPU time of one read-and-ship, milliseconds. */
  private record Shipped(double millis, double cpuMillis) {}

  /**
   * Reads every worker's piece from the store and ships it over a raw stream. The clocks start once
   * the stream's channel is connected, as the rollback's channels are, and stop when the receiver
   * has counted every byte: its setup and teardown are not in them.
   */
  private static Shipped readAndShip(BenchCluster c, long snapshotId) {
    SnapshotStore store = c.coordinator().store();
    List<String> ids = c.layout().ids();
    ExecutorService pool = Executors.newFixedThreadPool(ids.size());
    try (RawChannel raw = new RawChannel()) {
      long frames = raw.frames();
      try (RawChannel.Source connect = raw.open()) {
        connect.send(Frame.newBuilder().setEpoch(1)); // connected, the receiver's threads up
      }
      while (raw.frames() == frames) {
        Pause.millis(1);
      }
      long connected = raw.bytes();
      long cpu = ProcessCpu.nanos();
      long start = System.nanoTime();
      List<Future<Long>> shipped = new ArrayList<>();
      for (String id : ids) {
        shipped.add(
            pool.submit(
                () -> {
                  long[] sent = new long[2]; // bytes, frames
                  try (RawChannel.Source source = raw.open()) {
                    store.readState(
                        snapshotId,
                        id,
                        chunk -> {
                          sent[0] += chunk.length;
                          sent[1]++;
                          source.send(
                              Frame.newBuilder()
                                  .setEpoch(1)
                                  .addItems(
                                      Item.newBuilder()
                                          .setPosition(sent[1])
                                          .setData(
                                              DataMessage.newBuilder()
                                                  .setSeq(sent[1])
                                                  // a new array per chunk, never written
                                                  // again: no copy, as a download sends it
                                                  .setPayload(
                                                      UnsafeByteOperations.unsafeWrap(chunk)))));
                        });
                  }
                  return sent[0];
                }));
      }
      long total = 0;
      for (Future<Long> f : shipped) {
        total += f.get();
      }
      while (raw.bytes() < connected + total) {
        Pause.millis(1);
      }
      return new Shipped((System.nanoTime() - start) / 1e6, (ProcessCpu.nanos() - cpu) / 1e6);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("read-and-ship failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }
}
