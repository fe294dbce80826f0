package io.cutpoint.storage;

import io.cutpoint.api.v1.LocalSnapshotMeta;
import io.cutpoint.api.v1.SnapshotManifest;
import io.cutpoint.api.v1.SnapshotStatus;
import io.cutpoint.api.v1.Topology;
import io.cutpoint.api.v1.WorkerDecl;
import io.cutpoint.ha.S3SnapshotStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Times a small snapshot's write path on both stores in one run: create pending, one 1 KiB state
 * chunk and the metadata of each of 8 workers, commit. RocksDB with its production options (synced
 * commit) in a temporary directory; S3 and ZooKeeper as the tests run them (S3Proxy in memory, one
 * ZooKeeper server, both on loopback). Prints the median and the 90th percentile of N runs, with
 * the pieces written one after another and from 8 threads, after a warm-up of N runs of each; and,
 * for scale, one plain S3 PUT and one ZooKeeper write. No assertion: a probe.
 *
 * <pre>java -cp ... io.cutpoint.storage.WritePathProbe [runs, default 50]</pre>
 */
public final class WritePathProbe {
  static final int WORKERS = 8;
  static final int PIECE = 1024;

  private WritePathProbe() {}

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    Path dir = Files.createTempDirectory("cutpoint-probe");
    ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
    try (HaTestbed bed = new HaTestbed();
        RocksSnapshotStore rocks = RocksSnapshotStore.open(dir)) {
      S3SnapshotStore s3 = bed.open(bed.fresh());
      measure(rocks, runs, null); // warm both up: JIT, connections
      measure(s3, runs, null);
      report("one S3 PUT of 1 KiB (SDK, no store)", rawPuts(bed, runs));
      report("one ZooKeeper setData (no store)", zkWrites(bed, runs));
      for (boolean parallel : new boolean[] {false, true}) {
        String how = parallel ? "8 threads" : "sequential";
        report("RocksSnapshotStore (synced)  " + how, measure(rocks, runs, parallel ? pool : null));
        report("S3SnapshotStore + ZooKeeper  " + how, measure(s3, runs, parallel ? pool : null));
      }
    } finally {
      pool.shutdownNow();
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  static long[] measure(SnapshotStore store, int runs, ExecutorService pool) throws Exception {
    int warmup = Math.max(5, runs / 10);
    long[] nanos = new long[runs];
    Random random = new Random(42);
    for (int i = -warmup; i < runs; i++) {
      long id = store.allocateSnapshotId();
      byte[][] states = new byte[WORKERS][PIECE];
      Topology.Builder topology = Topology.newBuilder();
      for (int w = 0; w < WORKERS; w++) {
        random.nextBytes(states[w]);
        topology.addWorkers(WorkerDecl.newBuilder().setWorkerId("w" + w));
      }
      SnapshotManifest pending =
          SnapshotManifest.newBuilder()
              .setSnapshotId(id)
              .setStatus(SnapshotStatus.SNAPSHOT_STATUS_PENDING)
              .setEpoch(1)
              .setTopology(topology)
              .build();
      long start = System.nanoTime();
      store.createPending(pending);
      List<Future<?>> writes = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        String worker = "w" + w;
        byte[] state = states[w];
        Runnable piece =
            () -> {
              int crc = SnapshotFixture.crc(state);
              store.putStateChunk(id, worker, 0, state, crc);
              store.putWorkerMeta(
                  id,
                  LocalSnapshotMeta.newBuilder()
                      .setWorkerId(worker)
                      .setEpoch(1)
                      .setStateBytes(state.length)
                      .setStateCrc32C(crc)
                      .build());
            };
        if (pool == null) {
          piece.run();
        } else {
          writes.add(pool.submit(piece));
        }
      }
      for (Future<?> f : writes) {
        f.get();
      }
      store.commit(pending.toBuilder().setStatus(SnapshotStatus.SNAPSHOT_STATUS_COMPLETE).build());
      long took = System.nanoTime() - start;
      if (i >= 0) {
        nanos[i] = took;
      }
      store.applyRetention(3);
    }
    return nanos;
  }

  static long[] rawPuts(HaTestbed bed, int runs) {
    long[] nanos = new long[runs];
    byte[] data = new byte[PIECE];
    for (int i = 0; i < runs; i++) {
      long start = System.nanoTime();
      bed.putRaw("probe/raw/" + i, data);
      nanos[i] = System.nanoTime() - start;
    }
    return nanos;
  }

  static long[] zkWrites(HaTestbed bed, int runs) throws Exception {
    long[] nanos = new long[runs];
    bed.zk.create().creatingParentsIfNeeded().forPath("/probe/node", new byte[8]);
    for (int i = 0; i < runs; i++) {
      long start = System.nanoTime();
      bed.zk.setData().forPath("/probe/node", new byte[8]);
      nanos[i] = System.nanoTime() - start;
    }
    return nanos;
  }

  static void report(String what, long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    System.out.printf(
        "%-45s runs %d  median %7.2f ms  p90 %7.2f ms%n",
        what,
        sorted.length,
        sorted[sorted.length / 2] / 1e6,
        sorted[(int) (sorted.length * 0.9)] / 1e6);
  }
}
