package io.cutpoint.ops.bench;

import com.google.protobuf.ByteString;
import io.cutpoint.api.v1.DataMessage;
import io.cutpoint.api.v1.Frame;
import io.cutpoint.api.v1.Item;
import io.cutpoint.api.v1.RollbackResponse;
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
 * over loopback gRPC in 1 MiB frames (median of three runs up to 128 MiB, one above); item 5's peak
 * heap is measured around it.
 */
final class RecoveryPhase {

  /** One total state size; {@code skipped} says why it was not measured (else null). */
  record Row(
      long totalBytes,
      int workers,
      double rollbackMillis,
      double serverMillis,
      double baselineMillis,
      String skipped) {
    double ratio() {
      return baselineMillis == 0 ? Double.NaN : rollbackMillis / baselineMillis;
    }
  }

  /** Result of the phase: rows and the peak heap across them. */
  record Result(List<Row> rows, long peakHeapBytes) {}

  private RecoveryPhase() {}

  static Result run(BenchPlan plan, Consumer<String> progress) {
    List<Row> rows = new ArrayList<>();
    HeapPeak.reset();
    for (int mib : plan.recoveryMib()) {
      long total = (long) mib << 20;
      int workers = plan.recoveryWorkers();
      // The workers hold the state, the restore assembles a second copy before it replaces the
      // first.
      long needed = 3 * total + (256L << 20);
      if (needed > HeapPeak.maxHeapBytes()) {
        rows.add(
            new Row(
                total,
                workers,
                0,
                0,
                0,
                "needs about "
                    + (needed >> 20)
                    + " MiB of heap, max is "
                    + (HeapPeak.maxHeapBytes() >> 20)
                    + " MiB (run with a larger -Xmx)"));
        continue;
      }
      progress.accept("recovery: " + mib + " MiB over " + workers + " workers");
      int perWorker = (int) (total / workers);
      try (BenchCluster c =
          BenchCluster.start(Layout.ring(workers), plan, id -> new BenchApp(perWorker))) {
        BenchCoordinator.Taken t = c.coordinator().snapshot();
        if (!t.complete()) {
          rows.add(
              new Row(
                  total,
                  workers,
                  0,
                  0,
                  0,
                  "snapshot did not complete: " + t.manifest().getReason()));
          continue;
        }
        long id = t.manifest().getSnapshotId();
        // Small states: the median of three, as one run is at the mercy of the scheduler.
        int repeats = total <= (128L << 20) ? 3 : 1;
        Samples baseline = new Samples();
        Samples rollback = new Samples();
        Samples server = new Samples();
        String failure = null;
        for (int i = 0; i < repeats && failure == null; i++) {
          baseline.add(readAndShip(c, id));
          long start = System.nanoTime();
          RollbackResponse r = c.coordinator().rollback(id);
          rollback.add((System.nanoTime() - start) / 1e6);
          server.add(r.getDurationMicros() / 1000.0);
          if (!r.getCompleted()) {
            failure = "rollback did not complete";
          }
        }
        rows.add(new Row(total, workers, rollback.p50(), server.p50(), baseline.p50(), failure));
      }
      System.gc();
    }
    return new Result(rows, HeapPeak.peakBytes());
  }

  /** Reads every worker's piece from the store and ships it over a raw stream; milliseconds. */
  private static double readAndShip(BenchCluster c, long snapshotId) {
    SnapshotStore store = c.coordinator().store();
    List<String> ids = c.layout().ids();
    ExecutorService pool = Executors.newFixedThreadPool(ids.size());
    try (RawChannel raw = new RawChannel()) {
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
                                                  .setPayload(ByteString.copyFrom(chunk)))));
                        });
                  }
                  return sent[0];
                }));
      }
      long total = 0;
      for (Future<Long> f : shipped) {
        total += f.get();
      }
      while (raw.bytes() < total) {
        Pause.millis(1);
      }
      return (System.nanoTime() - start) / 1e6;
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
