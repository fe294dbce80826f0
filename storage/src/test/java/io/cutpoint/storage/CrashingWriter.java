package io.cutpoint.storage;

import java.nio.file.Path;

/**
 * Run in a child JVM that the test kills with SIGKILL: opens the store (synced commits, the
 * production options) and writes snapshots without end, printing "OPEN", then per snapshot "WROTE
 * id worker" after each worker's state, "COMMITTING id" just before the commit and "COMMITTED id"
 * once it returned.
 */
public final class CrashingWriter {
  private CrashingWriter() {}

  public static void main(String[] args) {
    try (RocksSnapshotStore store = RocksSnapshotStore.open(Path.of(args[0]))) {
      System.out.println("OPEN");
      while (true) {
        SnapshotFixture snap = new SnapshotFixture(store.allocateSnapshotId(), 20_000, 1024);
        store.createPending(snap.pending());
        for (String worker : SnapshotFixture.WORKERS) {
          snap.writeWorker(store, worker);
          System.out.println("WROTE " + snap.id + " " + worker);
        }
        snap.writeChannels(store);
        System.out.println("COMMITTING " + snap.id);
        store.commit(snap.complete());
        System.out.println("COMMITTED " + snap.id);
      }
    }
  }
}
